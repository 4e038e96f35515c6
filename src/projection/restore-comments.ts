import { ProtocolInputError } from "../errors.ts";
import type { SealedState } from "./bounded-history.ts";
import type { EntryFold } from "./derive-entry.ts";
import { checkComment, markDirty, remove, upsert } from "./fold-comments.ts";
import { LiveComments } from "./live-comments.ts";
import type { Held, KeyState, ProjectionState, RestoredComment } from "./projection-state.ts";
import { insertSorted } from "./sorted-ids.ts";

/**
 * A restart: comments loaded as a ProjectionStore kept them, and the folds a
 * bounded projection stored (SealedState) taken back so the comments they
 * name need not be parsed again.
 */

export const restoreSealed = (s: ProjectionState, state: SealedState): boolean => {
  if (state.policy !== s.policyPrint || s.hot === undefined) return false;
  // In columns (50,000 folded comments at 50k: a Map of objects was ≈ 7 MiB of the restart's peak heap).
  const pendingCold = new LiveComments<KeyState, Held>();
  s.pendingCold = pendingCold;
  for (const e of state.entries) {
    const fold: EntryFold = { ...e.fold, firstById: new Map(e.fold.firstById) };
    const k: KeyState = { key: e.key, agent: e.agent, session: e.session, ids: [], derived: null, fold, sealedUpTo: e.sealedUpTo, coldIds: [], tombIds: [], stale: false };
    s.keys.set(e.key, k);
    for (const [id, updatedMs, hash, multi] of e.cold) pendingCold.setBare(id, updatedMs, hash, multi, k);
  }
  return true;
};

export const restoreDone = (s: ProjectionState) => {
  if (!s.pendingCold) return;
  // Folded comments no longer stored as they were (changed, deleted, gone): those entries fold again from history.
  for (const id of s.pendingCold.keys()) {
    const k = s.pendingCold.coldOf(id);
    if (k) {
      k.stale = true;
      k.derived = null;
    }
  }
  s.pendingCold = null;
};

export const claimFolded = (s: ProjectionState, c: RestoredComment): boolean => {
  const pending = s.pendingCold;
  const k = pending?.coldOf(c.id);
  if (!pending || !k) {
    if (c.bodyOmitted) return false;
    restore(s, c);
    return true;
  }
  // The restart's hot loop (one call per stored comment): the claim is made here, not through restore.
  const updatedMs = Date.parse(c.updatedAt);
  if (c.deleted || !pending.sameVersion(c.id, updatedMs, c.hash, c.multi) || s.live.has(c.id)) return false;
  pending.delete(c.id);
  s.live.setBare(c.id, updatedMs, c.hash, c.multi, k);
  k.coldIds.push(c.id);
  if (c.id > s.maxId) s.maxId = c.id;
  if (updatedMs > s.maxUpdatedMs) s.maxUpdatedMs = updatedMs;
  return true;
};

export const restore = (s: ProjectionState, c: RestoredComment): void => {
  const pending = s.pendingCold;
  const k = pending?.coldOf(c.id);
  if (pending && k) {
    const { updatedMs } = checkComment({ id: c.id, author: c.author, body: "", createdAt: c.createdAt, updatedAt: c.updatedAt });
    const same = pending.sameVersion(c.id, updatedMs, c.hash, c.multi);
    pending.delete(c.id);
    if (!c.deleted && same && !s.live.has(c.id)) {
      s.live.setBare(c.id, updatedMs, c.hash, c.multi, k);
      k.coldIds.push(c.id);
      if (c.id > s.maxId) s.maxId = c.id;
      if (updatedMs > s.maxUpdatedMs) s.maxUpdatedMs = updatedMs;
      return;
    }
    k.stale = true;
    k.derived = null;
    if (c.deleted) insertSorted(k.tombIds, c.id);
  }
  if (c.bodyOmitted) throw new ProtocolInputError(`comment ${c.id} was read without its body: restore it with its body (or through claimFolded)`);
  if (c.hash !== "") {
    if (c.body !== null) {
      // The stored digest is bodyHash(body): not computed again (50,000 comments: ~70 ms).
      // `multi` goes in with the first version, before its record can be folded away (hotRecords).
      upsert(s, { id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}) }, c.hash, c.multi);
      const held = s.live.get(c.id);
      if (held && c.multi && !held.version.multi) {
        held.version.multi = true; // the record shares this object
        markDirty(s, held.record, held);
        s.live.set(c.id, held);
      }
    } else if (!s.live.has(c.id) && !s.tombs.has(c.id)) {
      const { updatedMs } = checkComment({ id: c.id, author: c.author, body: "", createdAt: c.createdAt, updatedAt: c.updatedAt });
      s.live.setBare(c.id, updatedMs, c.hash, c.multi, null);
      if (c.id > s.maxId) s.maxId = c.id;
      if (updatedMs > s.maxUpdatedMs) s.maxUpdatedMs = updatedMs;
    }
  }
  if (c.deleted) remove(s, c.id);
};
