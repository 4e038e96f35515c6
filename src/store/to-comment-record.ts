import type { ForgejoComment } from "../forgejo/index.ts";
import type { CommentRecord } from "../projection/index.ts";

/** Forgejo's comment → what the projection folds. */
export function toCommentRecord(c: ForgejoComment): CommentRecord {
  return { id: c.id, author: c.user.login, body: c.body, createdAt: c.created_at, updatedAt: c.updated_at, htmlUrl: c.html_url };
}
