import { COMMENT_KINDS, DEFAULT_READER_LIMITS, markerOf, toResumePoint } from "../protocol/index.ts";
import type { Checkpoint, KindRegistry, PhaseMap, ReaderLimits } from "../protocol/index.ts";
import { compareCodePoints } from "../protocol/index.ts";
import { ProtocolInputError } from "../errors.ts";
import { bodyHash } from "./body-hash.ts";
import type { CommentEvent, CommentRecord, TrustPolicy } from "./comment-event.ts";
import { deriveEntry, finishFold, foldRecords, cloneFold, sealFold, startFold } from "./derive-entry.ts";
import type { EntryFold } from "./derive-entry.ts";
import { DEFAULT_LEGACY_WRITERS } from "./legacy-writers.ts";
import { directiveOf } from "./directive-of.ts";
import type { DerivedEntry } from "./derive-entry.ts";
import { entryKey } from "./entry-key.ts";
import type { AgentEntry, Anomaly, LatestCheckpoint, ProjectionSnapshot, ResumeAnswer } from "./projection-snapshot.ts";
import { RECENT_CHECKPOINTS } from "./projection-snapshot.ts";
import { insertSorted, removeSorted, indexOfSorted } from "./sorted-ids.ts";
import { compareVersions, parseWith, toStoredRecord } from "./stored-comment.ts";
import type { StoredRecord, Version } from "./stored-comment.ts";

export interface ProjectionOptions {
  /** Bounds passed to the protocol reader. */
  readerLimits?: Partial<ReaderLimits>;
  /** The comment kinds to read (default the protocol's; see CommentKind's `project` for a kind of your own). */
  kinds?: KindRegistry;
  /**
   * Keep at most about twice this many records per agent+session in memory
   * (the bot): older ones are folded into a small state and dropped. A change
   * that reaches a dropped record (an edit or delete of it, a comment arriving
   * older than them) makes the entry ask for its history (`historyNeeded`),
   * which the caller reads from its store and gives back (`hydrate`).
   * Unset: every record is kept (one-shot readers, the CLI).
   */
  hotRecords?: number;
}

/**
 * What a bounded projection folded away, per agent+session, so a restart need
 * not parse those comments again (see `sealedState`/`restoreSealed`). Plain
 * JSON once `firstById` is written as pairs; only valid for the same trust
 * policy (`policy`).
 */
export interface SealedState {
  v: 1;
  /** Fingerprint of the trust policy the folds were made under (trust and signature checks are in them). */
  policy: string;
  entries: SealedEntry[];
}
export interface SealedEntry {
  key: string;
  agent: string;
  session: string;
  sealedUpTo: number;
  fold: Omit<EntryFold, "firstById"> & { firstById: [string, number][] };
  /** The folded comments' versions: id, updated (ms), body digest, multi, ascending by id. A stored comment that differs is parsed again. */
  cold: [number, number, string, boolean][];
}

/** An agent+session whose dropped records are needed again, and their comment ids. */
export interface HistoryRequest {
  key: string;
  agent: string;
  session: string;
  /** Ascending; the caller gives back the comments with these ids it holds (deleted ones too). */
  ids: number[];
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
  /** Highest live comment id (0 if none). */
  watermark(): number;
  anomalies(): Anomaly[];
}

/** What `restore` takes (a StoredComment of src/projection-store). */
export interface RestoredComment {
  id: number;
  author: string;
  /** RFC 3339, as Forgejo sent it. */
  createdAt: string;
  updatedAt: string;
  htmlUrl?: string;
  /** bodyHash() of the newest version's body. */
  hash: string;
  /** More than one distinct body was ever seen for this id (an edit); sticky. */
  multi: boolean;
  /** The newest version's body for protocol comments, else null. */
  body: string | null;
  /** Deleted on Forgejo: kept as a tombstone, never brought back by a late upsert. */
  deleted: boolean;
  /** The store has a body but left it out (`CommentQuery.bodies: false`): see `claimFolded`. */
  bodyOmitted?: boolean;
}

interface Held {
  version: Version;
  record: StoredRecord | null;
  /** Set instead of a record for a comment that is counted, not stored (see `Note`). */
  note: Note | null;
  /** The entry this comment's record was folded into and dropped from (hotRecords). */
  cold?: KeyState;
}
/**
 * What is kept of a comment the projection does not store: a protocol (or
 * oversized) comment by an untrusted author is counted against its author,
 * and an oversized comment by a trusted author is one anomaly.
 */
type Note = { kind: "untrusted"; author: string } | { kind: "oversized"; anomaly: Anomaly };
interface AuthorTally {
  /** Comment id → what the anomaly line shows of it (login as written, link). */
  ids: Map<number, { login: string; htmlUrl: string | undefined }>;
  oversized: Set<number>;
}

/** Untrusted authors listed one line each in `anomalies()`; beyond this they are summed in one line. */
export const MAX_UNTRUSTED_AUTHORS_LISTED = 100;
interface Tomb {
  version: Version | null;
  /** What the deleted comment was, if its content was ever seen and it was a checkpoint. */
  deleted: Anomaly | null;
}
interface KeyState {
  key: string;
  agent: string;
  session: string;
  /** Comment ids whose records are held, ascending. */
  ids: number[];
  derived: DerivedEntry | null;
  /** The fold of the records dropped so far (hotRecords), all older than `ids` unless `stale`. */
  fold: EntryFold | null;
  /** Highest dropped id (0: none). */
  sealedUpTo: number;
  /** Dropped ids still in this entry, ascending. */
  coldIds: number[];
  /** Dropped ids since deleted: their tombstone's anomaly needs the body back. */
  tombIds: number[];
  /** A change reached the dropped records: `fold` is no longer right until `hydrate`. */
  stale: boolean;
}

function checkComment(c: CommentRecord): { updatedMs: number } {
  const updatedMs = Date.parse(c.updatedAt);
  if (!Number.isSafeInteger(c.id) || c.id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(c.id)}`);
  if (Number.isNaN(updatedMs) || Number.isNaN(Date.parse(c.createdAt))) throw new ProtocolInputError(`comment ${c.id}: createdAt/updatedAt must be RFC 3339 times`);
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
    ...(options.kinds !== undefined ? { kinds: options.kinds } : {}),
  };
  const derive = { legacyWriters: policy.legacyWriters ?? DEFAULT_LEGACY_WRITERS };
  const maxBodyBytes = options.readerLimits?.maxBodyBytes ?? DEFAULT_READER_LIMITS.maxBodyBytes;
  const hot = options.hotRecords;
  if (hot !== undefined && (!Number.isSafeInteger(hot) || hot < 1)) throw new ProtocolInputError(`hotRecords must be a positive integer, got ${String(hot)}`);
  const live = new Map<number, Held>();
  const untrustedAuthors = new Map<string, AuthorTally>();
  const tombs = new Map<number, Tomb>();
  const keys = new Map<string, KeyState>();
  const unkeyed = new Map<number, Anomaly>();
  let maxId = 0;
  let maxUpdatedMs = Number.NEGATIVE_INFINITY;
  let watermarkDirty = false;
  // The legacy-writer policy decides which checkpoints the folds believe, like the trust list.
  // Kinds of one's own change what is folded too (the protocol's alone leave the fingerprint as it was).
  const extraKinds = options.kinds?.kinds.filter((k) => !COMMENT_KINDS.some((b) => b.kind === k.kind)).map((k) => k.kind) ?? [];
  const policyPrint = bodyHash(JSON.stringify([[...ctx.trustedAuthors].sort(), ctx.signingKey ?? null, hot ?? 0, derive.legacyWriters, ...(extraKinds.length ? [extraKinds] : [])]));
  /** From restoreSealed until restoreDone: comment id → the entry it was folded into, and its digest. */
  let pendingCold: Map<number, { k: KeyState; updatedMs: number; hash: string; multi: boolean }> | null = null;

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
    if (!k) {
      k = { key: r.key, agent: r.agent as string, session: r.session as string, ids: [], derived: null, fold: null, sealedUpTo: 0, coldIds: [], tombIds: [], stale: false };
      keys.set(r.key, k);
    }
    insertSorted(k.ids, r.commentId);
    k.derived = null;
    // Older than what was dropped, or a rewind to a dropped checkpoint: the fold must be redone from the history.
    if (k.sealedUpTo > 0 && (r.commentId <= k.sealedUpTo || (r.kind === "control" && r.control.action === "rewind" && (r.control.target ?? 0) <= k.sealedUpTo))) k.stale = true;
    seal(k);
  };
  /** Unlink a dropped comment from its entry (edit, delete); the entry needs its history again. */
  const detachCold = (held: Held, id: number, deleted: boolean) => {
    const k = held.cold;
    if (!k) return;
    delete held.cold;
    removeSorted(k.coldIds, id);
    if (deleted) insertSorted(k.tombIds, id);
    k.stale = true;
    k.derived = null;
  };
  /**
   * Fold the oldest records of an entry and drop them, keeping `hot` of them
   * (and any checkpoint a held rewind points to: rewinds find their target
   * among the records folded with them). Amortised: runs at twice `hot`.
   */
  const seal = (k: KeyState) => {
    if (hot === undefined || k.stale || k.ids.length <= 2 * hot) return;
    let n = k.ids.length - hot;
    for (let i = n; i < k.ids.length; i++) {
      const r = live.get(k.ids[i] as number)?.record;
      if (r?.kind === "control" && r.control.action === "rewind") {
        const j = indexOfSorted(k.ids, r.control.target ?? 0);
        if (j >= 0 && j < n) n = j;
      }
    }
    if (n <= 0) return;
    const batch: StoredRecord[] = [];
    for (const id of k.ids.slice(0, n)) {
      const held = live.get(id) as Held;
      batch.push(held.record as StoredRecord);
      held.record = null;
      held.cold = k;
      k.coldIds.push(id);
    }
    k.ids.splice(0, n);
    k.fold = sealFold(foldRecords(k.fold ?? startFold(k.agent, k.session), batch, derive), RECENT_CHECKPOINTS);
    k.sealedUpTo = batch[batch.length - 1]?.commentId ?? k.sealedUpTo;
  };
  const detach = (r: StoredRecord) => {
    if (r.key === null) {
      unkeyed.delete(r.commentId);
      return;
    }
    const k = keys.get(r.key);
    if (!k) return;
    removeSorted(k.ids, r.commentId);
    // An entry with a fold stays until `hydrate` decides (its folded comments may still be restoring).
    if (k.ids.length === 0 && k.fold === null) keys.delete(r.key);
    else k.derived = null;
  };
  const markDirty = (r: StoredRecord | null, held?: Held) => {
    if (r?.key != null) {
      const k = keys.get(r.key);
      if (k) k.derived = null;
    }
    if (held?.cold) {
      held.cold.stale = true;
      held.cold.derived = null;
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

  /**
   * Untrusted authors never drive output: their protocol comments (and any
   * comment over the reader's size limit) are counted per author and not
   * parsed or stored. A trusted oversized comment is one anomaly; its body is
   * not parsed either. The length test is cheap and sound: UTF-8 bytes >= UTF-16 units.
   */
  const noteFor = (c: CommentRecord): Note | null => {
    const trusted = ctx.trustedAuthors.has(c.author.toLowerCase());
    const oversized = c.body.length > maxBodyBytes;
    if (!trusted && (oversized || parseWith(ctx, c.body).kind !== "none")) return { kind: "untrusted", author: c.author.toLowerCase() };
    if (!oversized) return null;
    const mib = (c.body.length / 1024 / 1024).toFixed(1);
    return {
      kind: "oversized",
      anomaly: {
        kind: "oversized",
        commentId: c.id,
        agent: null,
        session: null,
        detail: `comment of at least ${mib} MiB is over the reader's ${maxBodyBytes}-byte limit; skipped`,
        ...(c.htmlUrl !== undefined ? { htmlUrl: detachString(c.htmlUrl) } : {}),
      },
    };
  };
  const addNote = (n: Note | null, c: CommentRecord) => {
    if (n === null) return;
    if (n.kind === "oversized") {
      unkeyed.set(n.anomaly.commentId, n.anomaly);
      return;
    }
    let t = untrustedAuthors.get(n.author);
    if (!t) untrustedAuthors.set(n.author, (t = { ids: new Map(), oversized: new Set() }));
    t.ids.set(c.id, { login: detachString(c.author), htmlUrl: c.htmlUrl === undefined ? undefined : detachString(c.htmlUrl) });
    if (c.body.length > maxBodyBytes) t.oversized.add(c.id);
  };
  const dropNote = (n: Note | null, id: number) => {
    if (n === null) return;
    if (n.kind === "oversized") {
      unkeyed.delete(id);
      return;
    }
    const t = untrustedAuthors.get(n.author);
    if (!t) return;
    t.ids.delete(id);
    t.oversized.delete(id);
    if (t.ids.size === 0) untrustedAuthors.delete(n.author);
  };
  /** Held record and note of one comment version. */
  const store = (c: CommentRecord, version: Version): { record: StoredRecord | null; note: Note | null } => {
    const note = noteFor(c);
    return { note, record: note ? null : toStoredRecord(c, version, ctx) };
  };

  const upsert = (c: CommentRecord, knownHash?: string, knownMulti = false): boolean => {
    const { updatedMs } = checkComment(c);
    const hash = knownHash ?? bodyHash(c.body);
    const tomb = tombs.get(c.id);
    if (tomb) {
      // Deleted for good; a late copy only tells us what it was.
      if (tomb.version && compareVersions({ updatedMs, hash }, tomb.version) <= 0) return false;
      tomb.version = { updatedMs, hash, multi: tomb.version?.multi ?? false };
      const p = noteFor(c) ? ({ kind: "none" } as const) : parseWith(ctx, c.body);
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
        markDirty(held.record, held);
        return true;
      }
      held.version = { updatedMs, hash, multi: held.version.multi || newlyMulti };
      if (held.record) detach(held.record);
      detachCold(held, c.id, false);
      dropNote(held.note, c.id);
      const next = store(c, held.version);
      held.record = next.record;
      held.note = next.note;
      if (held.record) attach(held.record);
      addNote(held.note, c);
    } else {
      const version: Version = { updatedMs, hash, multi: knownMulti };
      const { record, note } = store(c, version);
      live.set(c.id, { version, record, note });
      if (record) attach(record);
      addNote(note, c);
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
    dropNote(held.note, id);
    detachCold(held, id, true);
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
      // A stale entry is served from its last fold and held records until `hydrate` (best effort, briefly).
      k.derived = k.fold ? finishFold(foldRecords(cloneFold(k.fold), records, derive)) : deriveEntry(k.agent, k.session, records, derive);
    }
    return k.derived;
  };

  const hydrate = (key: string, comments: readonly RestoredComment[]) => {
    const k = keys.get(key);
    if (!k?.stale) return;
    const records: StoredRecord[] = [];
    for (const id of k.ids) {
      const r = live.get(id)?.record;
      if (r) records.push(r);
    }
    const cold = new Set(k.coldIds);
    const tombIds = new Set(k.tombIds);
    for (const c of comments) {
      if (c.body === null) continue;
      const cr: CommentRecord = { id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}) };
      const tomb = tombs.get(c.id);
      if (tomb && tombIds.has(c.id)) {
        const p = noteFor(cr) ? ({ kind: "none" } as const) : parseWith(ctx, c.body);
        tomb.deleted = p.kind === "checkpoint" ? deletedAnomaly(c.id, p.checkpoint, c.htmlUrl) : null;
        continue;
      }
      const held = live.get(c.id);
      if (!held || held.cold !== k || !cold.has(c.id)) continue;
      const r = toStoredRecord(cr, held.version, ctx);
      delete held.cold;
      held.record = r?.key === key ? r : null;
      if (held.record) records.push(held.record);
    }
    // Dropped ids the caller did not give back are left out of the entry (their comments stay counted).
    for (const id of k.coldIds) {
      const held = live.get(id);
      if (held?.cold === k) delete held.cold;
    }
    records.sort((a, b) => a.commentId - b.commentId);
    Object.assign(k, { ids: records.map((r) => r.commentId), derived: null, fold: null, sealedUpTo: 0, coldIds: [], tombIds: [], stale: false });
    if (k.ids.length === 0) keys.delete(key);
    else seal(k);
  };

  /**
   * Anomalies of trusted authors' comments (by comment id), then one line per
   * untrusted author (by their newest comment), at most
   * MAX_UNTRUSTED_AUTHORS_LISTED of them and a sum of the rest: a flood of
   * untrusted comments cannot push a real anomaly out of sight.
   */
  const anomalies = (): Anomaly[] => {
    const all: Anomaly[] = [...unkeyed.values()];
    for (const k of keys.values()) all.push(...derived(k).anomalies);
    for (const t of tombs.values()) if (t.deleted) all.push(t.deleted);
    all.sort((a, b) => a.commentId - b.commentId || compareCodePoints(a.kind, b.kind));
    const authors = [...untrustedAuthors.values()]
      .map((t) => {
        let last = 0;
        for (const id of t.ids.keys()) if (id > last) last = id;
        return { t, last, seen: t.ids.get(last) as { login: string; htmlUrl: string | undefined } };
      })
      .sort((a, b) => b.last - a.last);
    const listed = authors.slice(0, MAX_UNTRUSTED_AUTHORS_LISTED).reverse();
    const rest = authors.slice(MAX_UNTRUSTED_AUTHORS_LISTED);
    if (rest.length) {
      let n = 0;
      for (const a of rest) n += a.t.ids.size;
      all.push({
        kind: "untrusted-author",
        commentId: (rest[0] as (typeof rest)[number]).last,
        agent: null,
        session: null,
        detail: `${rest.length} more untrusted authors wrote ${comments(n)}; ignored`,
      });
    }
    for (const { t, last, seen } of listed) {
      const over = t.oversized.size ? `, ${t.oversized.size} over the size limit,` : "";
      all.push({
        kind: "untrusted-author",
        commentId: last,
        agent: null,
        session: null,
        detail: `${comments(t.ids.size)}${over} by ${seen.login}, who is not a trusted author; ignored`,
        ...(seen.htmlUrl !== undefined ? { htmlUrl: seen.htmlUrl } : {}),
        author: seen.login,
      });
    }
    return all;
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
    sealedState() {
      const entries: SealedEntry[] = [];
      for (const k of keys.values()) {
        if (!k.fold || k.stale) continue;
        const cold: [number, number, string, boolean][] = [];
        for (const id of k.coldIds) {
          const v = live.get(id)?.version;
          if (v) cold.push([id, v.updatedMs, v.hash, v.multi]);
        }
        entries.push({ key: k.key, agent: k.agent, session: k.session, sealedUpTo: k.sealedUpTo, fold: { ...k.fold, firstById: [...k.fold.firstById] }, cold });
      }
      return { v: 1, policy: policyPrint, entries };
    },
    restoreSealed(state) {
      if (state.policy !== policyPrint || hot === undefined) return false;
      pendingCold = new Map();
      for (const e of state.entries) {
        const fold: EntryFold = { ...e.fold, firstById: new Map(e.fold.firstById) };
        const k: KeyState = { key: e.key, agent: e.agent, session: e.session, ids: [], derived: null, fold, sealedUpTo: e.sealedUpTo, coldIds: [], tombIds: [], stale: false };
        keys.set(e.key, k);
        for (const [id, updatedMs, hash, multi] of e.cold) pendingCold.set(id, { k, updatedMs, hash, multi });
      }
      return true;
    },
    restoreDone() {
      if (!pendingCold) return;
      // Folded comments no longer stored as they were (changed, deleted, gone): those entries fold again from history.
      for (const [, { k }] of pendingCold) {
        k.stale = true;
        k.derived = null;
      }
      pendingCold = null;
    },
    claimFolded(c) {
      const sealed = pendingCold?.get(c.id);
      if (!sealed) {
        if (c.bodyOmitted) return false;
        projection.restore(c);
        return true;
      }
      // The restart's hot loop (one call per stored comment): the claim is made here, not through restore.
      const updatedMs = Date.parse(c.updatedAt);
      if (c.deleted || updatedMs !== sealed.updatedMs || c.hash !== sealed.hash || c.multi !== sealed.multi || live.has(c.id) || !pendingCold) return false;
      pendingCold.delete(c.id);
      live.set(c.id, { version: { updatedMs, hash: c.hash, multi: c.multi }, record: null, note: null, cold: sealed.k });
      sealed.k.coldIds.push(c.id);
      if (c.id > maxId) maxId = c.id;
      if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
      return true;
    },
    restore(c) {
      const sealed = pendingCold?.get(c.id);
      if (sealed && pendingCold) {
        pendingCold.delete(c.id);
        const { updatedMs } = checkComment({ id: c.id, author: c.author, body: "", createdAt: c.createdAt, updatedAt: c.updatedAt });
        if (!c.deleted && updatedMs === sealed.updatedMs && c.hash === sealed.hash && c.multi === sealed.multi && !live.has(c.id)) {
          live.set(c.id, { version: { updatedMs, hash: c.hash, multi: c.multi }, record: null, note: null, cold: sealed.k });
          sealed.k.coldIds.push(c.id);
          if (c.id > maxId) maxId = c.id;
          if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
          return;
        }
        sealed.k.stale = true;
        sealed.k.derived = null;
        if (c.deleted) insertSorted(sealed.k.tombIds, c.id);
      }
      if (c.bodyOmitted) throw new ProtocolInputError(`comment ${c.id} was read without its body: restore it with its body (or through claimFolded)`);
      if (c.hash !== "") {
        if (c.body !== null) {
          // The stored digest is bodyHash(body): not computed again (50,000 comments: ~70 ms).
          // `multi` goes in with the first version, before its record can be folded away (hotRecords).
          upsert({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}) }, c.hash, c.multi);
          const held = live.get(c.id);
          if (held && c.multi && !held.version.multi) {
            held.version.multi = true; // the record shares this object
            markDirty(held.record, held);
          }
        } else if (!live.has(c.id) && !tombs.has(c.id)) {
          const { updatedMs } = checkComment({ id: c.id, author: c.author, body: "", createdAt: c.createdAt, updatedAt: c.updatedAt });
          live.set(c.id, { version: { updatedMs, hash: c.hash, multi: c.multi }, record: null, note: null });
          if (c.id > maxId) maxId = c.id;
          if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
        }
      }
      if (c.deleted) remove(c.id);
    },
    historyNeeded() {
      const out: HistoryRequest[] = [];
      for (const k of keys.values()) if (k.stale) out.push({ key: k.key, agent: k.agent, session: k.session, ids: [...k.coldIds, ...k.tombIds].sort((a, b) => a - b) });
      return out;
    },
    hydrate,
    snapshot() {
      refreshWatermark();
      const entries = [...keys.values()].map((k) => derived(k).entry).sort((a, b) => compareCodePoints(a.agent, b.agent) || compareCodePoints(a.session, b.session));
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
        not_used: k ? (derived(k).entry.notUsed ?? []) : [],
      };
    },
    latest,
    entry(agent, session) {
      const k = keys.get(entryKey(agent, session));
      return k ? derived(k).entry : null;
    },
    watermark() {
      refreshWatermark();
      return maxId;
    },
    anomalies,
  };
  return projection;
}

const comments = (n: number) => `${n} protocol comment${n === 1 ? "" : "s"}`;

/** A copy that does not keep a large parent string alive (see stored-comment.ts). */
function detachString(s: string): string {
  return s.length >= 13 ? Buffer.from(s, "utf8").toString("utf8") : s;
}
