import { markerOf, parseComment, toResumePoint } from "../protocol/index.ts";
import type { Checkpoint, PhaseMap, ReaderLimits } from "../protocol/index.ts";
import { compareCodePoints } from "../protocol/index.ts";
import { ProtocolInputError } from "../errors.ts";
import { bodyHash } from "./body-hash.ts";
import type { CommentEvent, CommentRecord, TrustPolicy } from "./comment-event.ts";
import { deriveEntry } from "./derive-entry.ts";
import { directiveOf } from "./directive-of.ts";
import type { DerivedEntry } from "./derive-entry.ts";
import { entryKey } from "./entry-key.ts";
import type { Anomaly, LatestCheckpoint, ProjectionSnapshot, ResumeAnswer } from "./projection-snapshot.ts";
import { insertSorted, removeSorted } from "./sorted-ids.ts";
import { compareVersions, toStoredRecord } from "./stored-comment.ts";
import type { StoredRecord, Version } from "./stored-comment.ts";

export interface ProjectionOptions {
  /** Bounds passed to the protocol reader. */
  readerLimits?: Partial<ReaderLimits>;
}

/** Fold of the session issue's comments into per-agent state. See docs/projection.md. */
export interface Projection {
  /** Fold one event; true if anything held changed (a new version, a delete, a newly seen edit). */
  apply(event: CommentEvent): boolean;
  applyAll(events: Iterable<CommentEvent>): boolean;
  /** Full reconcile with a complete comment listing: ids held but not listed are deleted (tombstoned). */
  replaceAll(comments: readonly CommentRecord[]): boolean;
  /**
   * The deletion half of a reconcile, for listings folded batch by batch with
   * `apply`: every held id not in `listed` is deleted (tombstoned).
   */
  retainOnly(listed: ReadonlySet<number>): boolean;
  /**
   * Load one comment as a ProjectionStore kept it (the bot's restart): the
   * newest version, its digest, whether two bodies were ever seen, and the body
   * only for protocol comments. Deleted ones become tombstones.
   */
  restore(c: RestoredComment): void;
  snapshot(): ProjectionSnapshot;
  resume(agent: string, session: string, phaseMap: Readonly<PhaseMap>): ResumeAnswer;
  /** The resume point of agent+session, or, without session, the newest across the agent's sessions. */
  latest(agent: string, session?: string): LatestCheckpoint | null;
  /** Highest live comment id (0 if none). */
  watermark(): number;
  anomalies(): Anomaly[];
}

/** What `restore` takes (a StoredComment of src/projection-store). */
export interface RestoredComment {
  id: number;
  author: string;
  createdAt: string;
  updatedAt: string;
  htmlUrl?: string;
  hash: string;
  multi: boolean;
  body: string | null;
  deleted: boolean;
}

interface Held {
  version: Version;
  record: StoredRecord | null;
}
interface Tomb {
  version: Version | null;
  /** What the deleted comment was, if its content was ever seen and it was a checkpoint. */
  deleted: Anomaly | null;
}
interface KeyState {
  agent: string;
  session: string;
  /** Comment ids, ascending. */
  ids: number[];
  derived: DerivedEntry | null;
}

function checkComment(c: CommentRecord): { updatedMs: number } {
  const updatedMs = Date.parse(c.updatedAt);
  if (!Number.isSafeInteger(c.id) || c.id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(c.id)}`);
  if (Number.isNaN(updatedMs) || Number.isNaN(Date.parse(c.createdAt)))
    throw new ProtocolInputError(`comment ${c.id}: createdAt/updatedAt must be RFC 3339 times`);
  return { updatedMs };
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
  const ctx = {
    trustedAuthors: new Set([...policy.trustedAuthors].map((a) => a.toLowerCase())),
    ...(policy.signingKey !== undefined ? { signingKey: policy.signingKey } : {}),
    ...(options.readerLimits !== undefined ? { readerLimits: options.readerLimits } : {}),
  };
  const live = new Map<number, Held>();
  const tombs = new Map<number, Tomb>();
  const keys = new Map<string, KeyState>();
  const unkeyed = new Map<number, Anomaly>();
  let maxId = 0;
  let maxUpdatedMs = Number.NEGATIVE_INFINITY;
  let watermarkDirty = false;

  const attach = (r: StoredRecord) => {
    if (r.key === null) {
      unkeyed.set(r.commentId, {
        kind: "invalid",
        commentId: r.commentId,
        agent: r.agent,
        session: null,
        detail: `unreadable ${r.kind === "invalid" ? markerOf(r.marker) : "comment"}: ${r.kind === "invalid" ? r.error : ""}`,
        ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
      });
      return;
    }
    let k = keys.get(r.key);
    if (!k) keys.set(r.key, (k = { agent: r.agent as string, session: r.session as string, ids: [], derived: null }));
    insertSorted(k.ids, r.commentId);
    k.derived = null;
  };
  const detach = (r: StoredRecord) => {
    if (r.key === null) {
      unkeyed.delete(r.commentId);
      return;
    }
    const k = keys.get(r.key);
    if (!k) return;
    removeSorted(k.ids, r.commentId);
    if (k.ids.length === 0) keys.delete(r.key);
    else k.derived = null;
  };
  const markDirty = (r: StoredRecord | null) => {
    if (r?.key != null) {
      const k = keys.get(r.key);
      if (k) k.derived = null;
    }
  };

  const deletedAnomaly = (commentId: number, cp: Omit<Checkpoint, "data">, htmlUrl: string | undefined): Anomaly => ({
    kind: "deleted-checkpoint",
    commentId,
    agent: cp.agent,
    session: cp.session,
    detail: `checkpoint "${cp.phase}"${cp.seq !== undefined ? ` (seq ${cp.seq})` : ""} was deleted`,
    ...(htmlUrl !== undefined ? { htmlUrl } : {}),
  });

  const upsert = (c: CommentRecord): boolean => {
    const { updatedMs } = checkComment(c);
    const hash = bodyHash(c.body);
    const tomb = tombs.get(c.id);
    if (tomb) {
      // Deleted for good; a late copy only tells us what it was.
      if (tomb.version && compareVersions({ updatedMs, hash }, tomb.version) <= 0) return false;
      tomb.version = { updatedMs, hash, multi: tomb.version?.multi ?? false };
      const p = parseComment(c.body, ctx.readerLimits);
      tomb.deleted = p.kind === "checkpoint" ? deletedAnomaly(c.id, p.checkpoint, c.htmlUrl) : null;
      return true;
    }
    const held = live.get(c.id);
    if (held) {
      const cmp = compareVersions({ updatedMs, hash }, held.version);
      if (cmp === 0) return false;
      const newlyMulti = hash !== held.version.hash && !held.version.multi;
      if (cmp < 0) {
        if (!newlyMulti) return false;
        held.version.multi = true;
        markDirty(held.record);
        return true;
      }
      held.version = { updatedMs, hash, multi: held.version.multi || newlyMulti };
      if (held.record) detach(held.record);
      held.record = toStoredRecord(c, held.version, ctx);
      if (held.record) attach(held.record);
    } else {
      const version: Version = { updatedMs, hash, multi: false };
      const record = toStoredRecord(c, version, ctx);
      live.set(c.id, { version, record });
      if (record) attach(record);
    }
    if (c.id > maxId) maxId = c.id;
    if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
    return true;
  };

  const remove = (id: number): boolean => {
    if (!Number.isSafeInteger(id) || id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(id)}`);
    if (tombs.has(id)) return false;
    const held = live.get(id);
    if (!held) {
      tombs.set(id, { version: null, deleted: null });
      return true;
    }
    let deleted: Anomaly | null = null;
    if (held.record) {
      detach(held.record);
      if (held.record.kind === "checkpoint") deleted = deletedAnomaly(id, held.record.checkpoint, held.record.htmlUrl);
    }
    live.delete(id);
    tombs.set(id, { version: held.version, deleted });
    if (id === maxId || held.version.updatedMs === maxUpdatedMs) watermarkDirty = true;
    return true;
  };

  const refreshWatermark = () => {
    if (!watermarkDirty) return;
    maxId = 0;
    maxUpdatedMs = Number.NEGATIVE_INFINITY;
    for (const [id, h] of live) {
      if (id > maxId) maxId = id;
      if (h.version.updatedMs > maxUpdatedMs) maxUpdatedMs = h.version.updatedMs;
    }
    watermarkDirty = false;
  };

  const derived = (k: KeyState): DerivedEntry => {
    if (!k.derived) {
      const records = k.ids.map((id) => live.get(id)?.record).filter((r): r is StoredRecord => r != null);
      k.derived = deriveEntry(k.agent, k.session, records);
    }
    return k.derived;
  };

  const anomalies = (): Anomaly[] => {
    const all: Anomaly[] = [...unkeyed.values()];
    for (const k of keys.values()) all.push(...derived(k).anomalies);
    for (const t of tombs.values()) if (t.deleted) all.push(t.deleted);
    return all.sort((a, b) => a.commentId - b.commentId || compareCodePoints(a.kind, b.kind));
  };

  const latest = (agent: string, session?: string): LatestCheckpoint | null => {
    if (session !== undefined) {
      const k = keys.get(entryKey(agent, session));
      return k ? derived(k).entry.latest : null;
    }
    let best: LatestCheckpoint | null = null;
    for (const k of keys.values()) {
      if (k.agent !== agent) continue;
      const l = derived(k).entry.latest;
      if (l && (!best || l.commentId > best.commentId)) best = l;
    }
    return best;
  };

  const projection: Projection = {
    apply: (e) => (e.type === "upsert" ? upsert(e.comment) : remove(e.commentId)),
    applyAll(events) {
      let changed = false;
      for (const e of events) changed = projection.apply(e) || changed;
      return changed;
    },
    replaceAll(comments) {
      let changed = this.retainOnly(new Set(comments.map((c) => c.id)));
      for (const c of comments) changed = upsert(c) || changed;
      return changed;
    },
    retainOnly(listed) {
      let changed = false;
      for (const id of [...live.keys()]) if (!listed.has(id)) changed = remove(id) || changed;
      return changed;
    },
    restore(c) {
      if (c.hash !== "") {
        if (c.body !== null) {
          upsert({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}) });
          const held = live.get(c.id);
          if (held && c.multi && !held.version.multi) {
            held.version.multi = true; // the record shares this object
            markDirty(held.record);
          }
        } else if (!live.has(c.id) && !tombs.has(c.id)) {
          const { updatedMs } = checkComment({ id: c.id, author: c.author, body: "", createdAt: c.createdAt, updatedAt: c.updatedAt });
          live.set(c.id, { version: { updatedMs, hash: c.hash, multi: c.multi }, record: null });
          if (c.id > maxId) maxId = c.id;
          if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
        }
      }
      if (c.deleted) remove(c.id);
    },
    snapshot() {
      refreshWatermark();
      const entries = [...keys.values()]
        .map((k) => derived(k).entry)
        .sort((a, b) => compareCodePoints(a.agent, b.agent) || compareCodePoints(a.session, b.session));
      return {
        v: 1,
        watermark: maxId,
        watermarkUpdatedAt: live.size ? new Date(maxUpdatedMs).toISOString() : null,
        comments: live.size,
        entries,
        anomalies: anomalies(),
      };
    },
    resume(agent, session, phaseMap) {
      const k = keys.get(entryKey(agent, session));
      const cp = k ? derived(k).entry.latest : null;
      const r = toResumePoint(cp, phaseMap);
      return {
        ...r,
        checkpoint: cp
          ? {
              commentId: cp.commentId,
              ...(cp.id !== undefined ? { id: cp.id } : {}),
              ...(cp.seq !== undefined ? { seq: cp.seq } : {}),
              ...(cp.epoch !== undefined ? { epoch: cp.epoch } : {}),
            }
          : null,
        directive: directiveOf(k ? derived(k).entry : null),
      };
    },
    latest,
    watermark() {
      refreshWatermark();
      return maxId;
    },
    anomalies,
  };
  return projection;
}
