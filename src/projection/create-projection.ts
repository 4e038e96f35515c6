import { DEFAULT_READER_LIMITS, markerOf, parseComment, toResumePoint } from "../protocol/index.ts";
import type { Checkpoint, PhaseMap, ReaderLimits } from "../protocol/index.ts";
import { compareCodePoints } from "../protocol/index.ts";
import { ProtocolInputError } from "../errors.ts";
import { bodyHash } from "./body-hash.ts";
import type { CommentEvent, CommentRecord, TrustPolicy } from "./comment-event.ts";
import { deriveEntry } from "./derive-entry.ts";
import { DEFAULT_LEGACY_WRITERS } from "./legacy-writers.ts";
import { directiveOf } from "./directive-of.ts";
import type { DerivedEntry } from "./derive-entry.ts";
import { entryKey } from "./entry-key.ts";
import type { AgentEntry, Anomaly, LatestCheckpoint, ProjectionSnapshot, ResumeAnswer } from "./projection-snapshot.ts";
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
}

interface Held {
  version: Version;
  record: StoredRecord | null;
  /** Set instead of a record for a comment that is counted, not stored (see `Note`). */
  note: Note | null;
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
  agent: string;
  session: string;
  /** Comment ids, ascending. */
  ids: number[];
  derived: DerivedEntry | null;
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
  };
  const derive = { legacyWriters: policy.legacyWriters ?? DEFAULT_LEGACY_WRITERS };
  const maxBodyBytes = options.readerLimits?.maxBodyBytes ?? DEFAULT_READER_LIMITS.maxBodyBytes;
  const live = new Map<number, Held>();
  const untrustedAuthors = new Map<string, AuthorTally>();
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
    if (!k) {
      k = { agent: r.agent as string, session: r.session as string, ids: [], derived: null };
      keys.set(r.key, k);
    }
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

  /**
   * Untrusted authors never drive output: their protocol comments (and any
   * comment over the reader's size limit) are counted per author and not
   * parsed or stored. A trusted oversized comment is one anomaly; its body is
   * not parsed either. The length test is cheap and sound: UTF-8 bytes >= UTF-16 units.
   */
  const noteFor = (c: CommentRecord): Note | null => {
    const trusted = ctx.trustedAuthors.has(c.author.toLowerCase());
    const oversized = c.body.length > maxBodyBytes;
    if (!trusted && (oversized || parseComment(c.body, ctx.readerLimits).kind !== "none")) return { kind: "untrusted", author: c.author.toLowerCase() };
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

  const upsert = (c: CommentRecord): boolean => {
    const { updatedMs } = checkComment(c);
    const hash = bodyHash(c.body);
    const tomb = tombs.get(c.id);
    if (tomb) {
      // Deleted for good; a late copy only tells us what it was.
      if (tomb.version && compareVersions({ updatedMs, hash }, tomb.version) <= 0) return false;
      tomb.version = { updatedMs, hash, multi: tomb.version?.multi ?? false };
      const p = noteFor(c) ? ({ kind: "none" } as const) : parseComment(c.body, ctx.readerLimits);
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
      dropNote(held.note, c.id);
      const next = store(c, held.version);
      held.record = next.record;
      held.note = next.note;
      if (held.record) attach(held.record);
      addNote(held.note, c);
    } else {
      const version: Version = { updatedMs, hash, multi: false };
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
      k.derived = deriveEntry(k.agent, k.session, records, derive);
    }
    return k.derived;
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
          live.set(c.id, { version: { updatedMs, hash: c.hash, multi: c.multi }, record: null, note: null });
          if (c.id > maxId) maxId = c.id;
          if (updatedMs > maxUpdatedMs) maxUpdatedMs = updatedMs;
        }
      }
      if (c.deleted) remove(c.id);
    },
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
