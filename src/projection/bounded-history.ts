import { CONTROLS } from "../protocol/index.ts";
import type { CommentRecord } from "./comment-event.ts";
import { noteFor } from "./comment-notes.ts";
import { foldRecords, sealFold, startFold } from "./derive-entry.ts";
import type { EntryFold } from "./derive-entry.ts";
import { RECENT_CHECKPOINTS } from "./projection-snapshot.ts";
import { deletedAnomaly } from "./projection-state.ts";
import type { Held, KeyState, ProjectionState, RestoredComment } from "./projection-state.ts";
import { indexOfSorted, insertSorted, removeSorted } from "./sorted-ids.ts";
import { parseWith, toStoredRecord } from "./stored-comment.ts";
import type { StoredRecord } from "./stored-comment.ts";

/**
 * The bounded history (`hotRecords`): an entry's oldest records are folded
 * into a small state and dropped; a change that reaches them makes the entry
 * stale until its history is given back (`hydrate`).
 */

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

/** Unlink a dropped comment from its entry (edit, delete); the entry needs its history again. */
export const detachCold = (held: Held, id: number, deleted: boolean) => {
  const k = held.cold;
  if (!k) return;
  held.cold = null;
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
export const seal = (s: ProjectionState, k: KeyState) => {
  const hot = s.hot;
  if (hot === undefined || k.stale || k.ids.length <= 2 * hot) return;
  let n = k.ids.length - hot;
  for (let i = n; i < k.ids.length; i++) {
    const r = s.live.record(k.ids[i] as number);
    if (r?.kind === "control" && CONTROLS.byName(r.control.action)?.target) {
      const j = indexOfSorted(k.ids, r.control.target ?? 0);
      if (j >= 0 && j < n) n = j;
    }
  }
  if (n <= 0) return;
  const batch: StoredRecord[] = [];
  for (const id of k.ids.slice(0, n)) {
    const held = s.live.get(id) as Held;
    batch.push(held.record as StoredRecord);
    held.record = null;
    held.cold = k;
    s.live.set(id, held);
    k.coldIds.push(id);
  }
  k.ids.splice(0, n);
  k.fold = sealFold(foldRecords(k.fold ?? startFold(k.agent, k.session), batch, s.derive), RECENT_CHECKPOINTS);
  k.sealedUpTo = batch[batch.length - 1]?.commentId ?? k.sealedUpTo;
};

export const hydrate = (s: ProjectionState, key: string, comments: readonly RestoredComment[]) => {
  const { keys, live, tombs, ctx } = s;
  const k = keys.get(key);
  if (!k?.stale) return;
  const records: StoredRecord[] = [];
  for (const id of k.ids) {
    const r = live.record(id);
    if (r) records.push(r);
  }
  const cold = new Set(k.coldIds);
  const tombIds = new Set(k.tombIds);
  for (const c of comments) {
    if (c.body === null) continue;
    const cr: CommentRecord = { id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}) };
    const tomb = tombs.get(c.id);
    if (tomb && tombIds.has(c.id)) {
      const p = noteFor(s, cr) ? ({ kind: "none" } as const) : parseWith(ctx, c.body);
      tomb.deleted = p.kind === "checkpoint" ? deletedAnomaly(c.id, p.checkpoint, c.htmlUrl) : null;
      continue;
    }
    const held = live.get(c.id);
    if (!held || held.cold !== k || !cold.has(c.id)) continue;
    const r = toStoredRecord(cr, held.version, ctx);
    held.cold = null;
    held.record = r?.key === key ? r : null;
    live.set(c.id, held);
    if (held.record) records.push(held.record);
  }
  // Dropped ids the caller did not give back are left out of the entry (their comments stay counted).
  for (const id of k.coldIds) {
    if (live.coldOf(id) === k) live.setCold(id, null);
  }
  records.sort((a, b) => a.commentId - b.commentId);
  Object.assign(k, { ids: records.map((r) => r.commentId), derived: null, fold: null, sealedUpTo: 0, coldIds: [], tombIds: [], stale: false });
  if (k.ids.length === 0) keys.delete(key);
  else seal(s, k);
};

export const historyNeeded = (s: ProjectionState): HistoryRequest[] => {
  const out: HistoryRequest[] = [];
  for (const k of s.keys.values()) if (k.stale) out.push({ key: k.key, agent: k.agent, session: k.session, ids: [...k.coldIds, ...k.tombIds].sort((a, b) => a - b) });
  return out;
};

export const sealedState = (s: ProjectionState): SealedState => {
  const entries: SealedEntry[] = [];
  for (const k of s.keys.values()) {
    if (!k.fold || k.stale) continue;
    const cold: [number, number, string, boolean][] = [];
    for (const id of k.coldIds) {
      const v = s.live.version(id);
      if (v) cold.push([id, v.updatedMs, v.hash, v.multi]);
    }
    entries.push({ key: k.key, agent: k.agent, session: k.session, sealedUpTo: k.sealedUpTo, fold: { ...k.fold, firstById: [...k.fold.firstById] }, cold });
  }
  return { v: 1, policy: s.policyPrint, entries };
};
