import type { HostComment } from "../ports/issue-host.ts";
import type { CommentRecord } from "../projection/index.ts";

/** The host's comment → what the projection folds. */
export function toCommentRecord(c: HostComment): CommentRecord {
  return { id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, htmlUrl: c.htmlUrl };
}
