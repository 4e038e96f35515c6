import type { IssueKey } from "../../index.ts";
import { COLS, type CommentRow } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** Read and row-lock (FOR UPDATE) one comment's stored row; undefined when there is none. */
export async function lockComment(db: Queryable, issue: IssueKey, id: number): Promise<CommentRow | undefined> {
  return (await db.query<CommentRow>(`SELECT ${COLS} FROM checkpost_comments WHERE issue_key = $1 AND comment_id = $2 FOR UPDATE`, [issue, id])).rows[0];
}
