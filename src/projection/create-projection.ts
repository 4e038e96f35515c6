import type { PhaseMap } from "../protocol/index.ts";
import { hydrate, historyNeeded, sealedState } from "./bounded-history.ts";
import type { HistoryRequest, SealedState } from "./bounded-history.ts";
import type { CommentEvent, CommentRecord, TrustPolicy } from "./comment-event.ts";
import { remove, upsert } from "./fold-comments.ts";
import { anomalies, entry, latest, resume, signalTimes, snapshot, watermark, watermarkUpdatedAt } from "./projection-answers.ts";
import type { AgentEntry, Anomaly, LatestCheckpoint, ProjectionSnapshot, ResumeAnswer } from "./projection-snapshot.ts";
import { createProjectionState } from "./projection-state.ts";
import type { ProjectionOptions, RestoredComment } from "./projection-state.ts";
import { claimFolded, restore, restoreDone, restoreSealed } from "./restore-comments.ts";

// The parts, named for what they do: projection-state.ts (what is held), fold-comments.ts (events in),
// comment-notes.ts (comments counted, not stored), bounded-history.ts and restore-comments.ts
// (hotRecords: records folded away, a restart), projection-answers.ts (reads).
export type { HistoryRequest, SealedEntry, SealedState } from "./bounded-history.ts";
export type { ProjectionOptions, RestoredComment } from "./projection-state.ts";
export { MAX_UNTRUSTED_AUTHORS_LISTED } from "./projection-answers.ts";

/** Fold of the session issue's comments into per-agent state. See docs/projection.md. */
export interface Projection {
  /** Fold one event; true if anything held changed (a new version, a delete, a newly seen edit). */
  apply(event: CommentEvent): boolean;
  applyAll(events: Iterable<CommentEvent>): boolean;
  /** Full reconcile with a complete comment listing: ids held but not listed are deleted (tombstoned). */
  replaceAll(comments: readonly CommentRecord[]): boolean;
  /**
   * The deletion half of a reconcile, for listings folded batch by batch with
   * `apply`: every held id not in `listed` is deleted (tombstoned); with `upTo`, only ids up to it
   * (a comment newer than the listing's start may have been created after it read its page).
   */
  retainOnly(listed: ReadonlySet<number>, upTo?: number): boolean;
  /**
   * Load one comment as a ProjectionStore kept it (the bot's restart): the
   * newest version, its digest, whether two bodies were ever seen, and the body
   * only for protocol comments. Deleted ones become tombstones.
   */
  restore(c: RestoredComment): void;
  /** With `hotRecords`: what is folded away now (to store, for the next restart). */
  sealedState(): SealedState;
  /**
   * Before any `restore`: take a SealedState back. Each restored comment it
   * names with the same digest is then taken as folded, not parsed; the rest are
   * restored as usual, and any entry it no longer fits asks for its history.
   * Ignored (false) when it was made under another trust policy.
   */
  restoreSealed(state: SealedState): boolean;
  /** After the last `restore`: entries whose folded comments were not all restored ask for history. */
  restoreDone(): void;
  /**
   * Restore a comment read without its body if it needs none: a folded comment
   * the restored state names with this version, or one with no body. False:
   * restore it with its body instead.
   */
  claimFolded(c: RestoredComment): boolean;
  /** Entries (with `hotRecords`) that need their dropped records back; empty when none does. */
  historyNeeded(): HistoryRequest[];
  /**
   * Give an entry its history back: the stored comments of the ids asked for
   * (any others are ignored). The entry is then derived from every record again.
   */
  hydrate(key: string, comments: readonly RestoredComment[]): void;
  snapshot(): ProjectionSnapshot;
  resume(agent: string, session: string, phaseMap: Readonly<PhaseMap>): ResumeAnswer;
  /** The resume point of agent+session, or, without session, the newest across the agent's sessions. */
  latest(agent: string, session?: string): LatestCheckpoint | null;
  /** One agent+session's entry (its fence is `maxEpoch`), or null; derives only that entry. */
  entry(agent: string, session: string): AgentEntry | null;
  /**
   * The server times (ms) of the agent+session's trusted signals, in comment-id order: every one
   * folded here (a bounded projection keeps the last MAX_INTERVALS + 1). A cold reader joins them
   * to the resume index's (joinSignals), so its liveness equals a full read's.
   */
  signalTimes(agent: string, session: string): readonly number[];
  /** Highest live comment id (0 if none). */
  watermark(): number;
  /**
   * The newest `updated_at` among live comments (ISO), null when none: `snapshot().watermarkUpdatedAt`
   * without building the snapshot (every warm `/api/resume` asks for it).
   */
  watermarkUpdatedAt(): string | null;
  anomalies(): Anomaly[];
}

/**
 * Create an empty projection. State is explicit and held only here; it reads no
 * clock. Derivation is lazy: an event marks its agent+session dirty and the
 * next read re-derives only dirty entries.
 *
 * @example
 * const p = createProjection({ trustedAuthors: new Set(["ci-bot"]) });
 * p.applyAll(comments.map((comment) => ({ type: "upsert", comment })));
 * p.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
 */
export function createProjection(policy: TrustPolicy, options: ProjectionOptions = {}): Projection {
  const s = createProjectionState(policy, options);
  const projection: Projection = {
    apply: (e) => (e.type === "upsert" ? upsert(s, e.comment) : remove(s, e.commentId)),
    applyAll(events) {
      let changed = false;
      for (const e of events) changed = projection.apply(e) || changed;
      return changed;
    },
    replaceAll(comments) {
      let changed = this.retainOnly(new Set(comments.map((c) => c.id)));
      for (const c of comments) changed = upsert(s, c) || changed;
      return changed;
    },
    retainOnly(listed, upTo = Number.POSITIVE_INFINITY) {
      let changed = false;
      for (const id of [...s.live.keys()]) if (!listed.has(id) && id <= upTo) changed = remove(s, id) || changed;
      return changed;
    },
    sealedState: () => sealedState(s),
    restoreSealed: (state) => restoreSealed(s, state),
    restoreDone: () => restoreDone(s),
    claimFolded: (c) => claimFolded(s, c),
    restore: (c) => restore(s, c),
    historyNeeded: () => historyNeeded(s),
    hydrate: (key, comments) => hydrate(s, key, comments),
    snapshot: () => snapshot(s),
    resume: (agent, session, phaseMap) => resume(s, agent, session, phaseMap),
    latest: (agent, session) => latest(s, agent, session),
    entry: (agent, session) => entry(s, agent, session),
    signalTimes: (agent, session) => signalTimes(s, agent, session),
    watermark: () => watermark(s),
    watermarkUpdatedAt: () => watermarkUpdatedAt(s),
    anomalies: () => anomalies(s),
  };
  return projection;
}
