import { CONTROLS, markerOf } from "../protocol/index.ts";
import { ProtocolInputError } from "../errors.ts";
import { bodyHash } from "./body-hash.ts";
import { detachCold, seal } from "./bounded-history.ts";
import type { CommentRecord } from "./comment-event.ts";
import { addNote, dropNote, noteFor, store } from "./comment-notes.ts";
import type { Anomaly } from "./projection-snapshot.ts";
import { deletedAnomaly } from "./projection-state.ts";
import type { Held, ProjectionState } from "./projection-state.ts";
import { insertSorted, removeSorted } from "./sorted-ids.ts";
import { compareVersions, parseWith } from "./stored-comment.ts";
import type { StoredRecord, Version } from "./stored-comment.ts";

/**
 * The fold of comment events into held records, per agent+session entry:
 * upserts (newest version wins), deletes (tombstones), and the watermark.
 * An event marks its entry dirty; the entry is derived again on the next read.
 */

export function checkComment(c: CommentRecord): { updatedMs: number } {
  const updatedMs = Date.parse(c.updatedAt);
  if (!Number.isSafeInteger(c.id) || c.id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(c.id)}`);
  if (Number.isNaN(updatedMs) || Number.isNaN(Date.parse(c.createdAt))) throw new ProtocolInputError(`comment ${c.id}: createdAt/updatedAt must be RFC 3339 times`);
  return { updatedMs };
}

const attach = (s: ProjectionState, r: StoredRecord) => {
  if (r.key === null) {
    s.unkeyed.set(r.commentId, {
      kind: "invalid",
      commentId: r.commentId,
      agent: r.agent,
      session: null,
      detail: `unreadable ${r.kind === "invalid" ? markerOf(r.marker) : "comment"}: ${r.kind === "invalid" ? r.error : ""}`,
      ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
    });
    return;
  }
  let k = s.keys.get(r.key);
  if (!k) {
    k = { key: r.key, agent: r.agent as string, session: r.session as string, ids: [], derived: null, fold: null, sealedUpTo: 0, coldIds: [], tombIds: [], stale: false };
    s.keys.set(r.key, k);
  }
  insertSorted(k.ids, r.commentId);
  k.derived = null;
  // Older than what was dropped, or a rewind to a dropped checkpoint: the fold must be redone from the history.
  if (k.sealedUpTo > 0 && (r.commentId <= k.sealedUpTo || (r.kind === "control" && CONTROLS.byName(r.control.action)?.target && (r.control.target ?? 0) <= k.sealedUpTo))) k.stale = true;
  seal(s, k);
};
const detach = (s: ProjectionState, r: StoredRecord) => {
  if (r.key === null) {
    s.unkeyed.delete(r.commentId);
    return;
  }
  const k = s.keys.get(r.key);
  if (!k) return;
  removeSorted(k.ids, r.commentId);
  // An entry with a fold stays until `hydrate` decides (its folded comments may still be restoring).
  if (k.ids.length === 0 && k.fold === null) s.keys.delete(r.key);
  else k.derived = null;
};
export const markDirty = (s: ProjectionState, r: StoredRecord | null, held?: Held) => {
  if (r?.key != null) {
    const k = s.keys.get(r.key);
    if (k) k.derived = null;
  }
  if (held?.cold) {
    held.cold.stale = true;
    held.cold.derived = null;
  }
};

export const upsert = (s: ProjectionState, c: CommentRecord, knownHash?: string, knownMulti = false): boolean => {
  const { updatedMs } = checkComment(c);
  const hash = knownHash ?? bodyHash(c.body);
  const tomb = s.tombs.get(c.id);
  if (tomb) {
    // Deleted for good; a late copy only tells us what it was.
    if (tomb.version && compareVersions({ updatedMs, hash }, tomb.version) <= 0) return false;
    tomb.version = { updatedMs, hash, multi: tomb.version?.multi ?? false };
    const p = noteFor(s, c) ? ({ kind: "none" } as const) : parseWith(s.ctx, c.body);
    tomb.deleted = p.kind === "checkpoint" ? deletedAnomaly(c.id, p.checkpoint, c.htmlUrl) : null;
    return true;
  }
  const held = s.live.get(c.id);
  if (held) {
    const cmp = compareVersions({ updatedMs, hash }, held.version);
    if (cmp === 0) return false;
    const newlyMulti = hash !== held.version.hash && !held.version.multi;
    if (cmp < 0) {
      if (!newlyMulti) return false;
      held.version.multi = true;
      markDirty(s, held.record, held);
      s.live.set(c.id, held);
      return true;
    }
    held.version = { updatedMs, hash, multi: held.version.multi || newlyMulti };
    if (held.record) detach(s, held.record);
    detachCold(held, c.id, false);
    dropNote(s, held.note, c.id);
    const next = store(s, c, held.version);
    held.record = next.record;
    held.note = next.note;
    s.live.set(c.id, held);
    if (held.record) attach(s, held.record);
    addNote(s, held.note, c);
  } else {
    const version: Version = { updatedMs, hash, multi: knownMulti };
    const { record, note } = store(s, c, version);
    s.live.set(c.id, { version, record, note, cold: null });
    if (record) attach(s, record);
    addNote(s, note, c);
  }
  if (c.id > s.maxId) s.maxId = c.id;
  if (updatedMs > s.maxUpdatedMs) s.maxUpdatedMs = updatedMs;
  return true;
};

export const remove = (s: ProjectionState, id: number): boolean => {
  if (!Number.isSafeInteger(id) || id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(id)}`);
  if (s.tombs.has(id)) return false;
  const held = s.live.get(id);
  if (!held) {
    s.tombs.set(id, { version: null, deleted: null });
    return true;
  }
  let deleted: Anomaly | null = null;
  dropNote(s, held.note, id);
  detachCold(held, id, true);
  if (held.record) {
    detach(s, held.record);
    if (held.record.kind === "checkpoint") deleted = deletedAnomaly(id, held.record.checkpoint, held.record.htmlUrl);
  }
  s.live.delete(id);
  s.tombs.set(id, { version: held.version, deleted });
  if (id === s.maxId || held.version.updatedMs === s.maxUpdatedMs) s.watermarkDirty = true;
  return true;
};

export const refreshWatermark = (s: ProjectionState) => {
  if (!s.watermarkDirty) return;
  const { maxId, maxUpdatedMs } = s.live.maxima();
  s.maxId = maxId;
  s.maxUpdatedMs = maxUpdatedMs;
  s.watermarkDirty = false;
};
