import type { CommentEvent, CommentRecord } from "../../projection/index.ts";
import type { StoredComment } from "../index.ts";

/** Placeholder time of the earlier version replayed for an edited comment (see feedEvents). */
const EPOCH = "1970-01-01T00:00:00Z";

/**
 * Projection events that rebuild what a stored row means: its newest version
 * (body "" when not a protocol comment), then its delete. A row seen with more
 * than one body is replayed with a placeholder earlier version first, so the
 * fold marks it edited as the replica that saw both versions did.
 */
export function feedEvents(r: StoredComment): CommentEvent[] {
  const out: CommentEvent[] = [];
  if (r.updatedAt !== "") {
    const comment: CommentRecord = { id: r.id, author: r.author, body: r.body ?? "", createdAt: r.createdAt, updatedAt: r.updatedAt, ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) };
    if (r.multi) out.push({ type: "upsert", comment: { ...comment, body: "\u0000edited", updatedAt: EPOCH } });
    out.push({ type: "upsert", comment });
  }
  if (r.deleted) out.push({ type: "delete", commentId: r.id });
  return out;
}
