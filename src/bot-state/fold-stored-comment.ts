import type { CommentEvent } from "../projection/index.ts";
import { bodyHash } from "../projection/body-hash.ts";
import { compareVersions } from "../projection/stored-comment.ts";
import { isProtocolBody } from "./is-protocol-body.ts";
import type { StoredComment } from "./projection-store.ts";

/**
 * One event against the stored row of its comment id: the new row, or null
 * when the event changes nothing (the same or an older version, a repeated
 * delete). The same rules as the projection's, so the store and a projection
 * fed the store's `changed` events agree: newest updatedAt wins, ties by the
 * larger hash; a second distinct body marks the comment `multi` for good; a
 * delete is for good, and a late version only tells what the deleted comment was.
 * Pure: both store implementations call it inside their transaction.
 */
export function foldStoredComment(prev: StoredComment | undefined, ev: CommentEvent): StoredComment | null {
  if (ev.type === "delete") {
    if (prev?.deleted) return null;
    return prev ? { ...prev, deleted: true } : { id: ev.commentId, author: "", createdAt: "", updatedAt: "", hash: "", multi: false, body: null, deleted: true };
  }
  const c = ev.comment;
  const hash = bodyHash(c.body);
  const next: StoredComment = {
    id: c.id,
    author: c.author,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    ...(c.htmlUrl !== undefined ? { htmlUrl: c.htmlUrl } : {}),
    hash,
    multi: false,
    body: isProtocolBody(c.body) ? c.body : null,
    deleted: false,
  };
  if (!prev) return next;
  if (prev.deleted && prev.hash === "") return { ...next, deleted: true }; // deleted before any version was seen
  const cmp = compareVersions({ updatedMs: Date.parse(c.updatedAt), hash }, { updatedMs: Date.parse(prev.updatedAt), hash: prev.hash });
  if (cmp === 0) return null;
  const multi = prev.multi || hash !== prev.hash;
  if (cmp < 0) return multi && !prev.multi ? { ...prev, multi: true } : null;
  return { ...next, multi, deleted: prev.deleted };
}
