import type { IssueKey } from "../../index.ts";
import { COLS, type CommentRow } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** Read and row-lock (FOR UPDATE, in id order) the stored rows of these comments, by id; absent ones are not in the map. */
export async function lockComments(db: Queryable, issue: IssueKey, ids: readonly number[]): Promise<Map<number, CommentRow>> {
  const r = await db.query<CommentRow>(`SELECT ${COLS} FROM checkpost_comments WHERE issue_key = $1 AND comment_id = ANY($2::bigint[]) ORDER BY comment_id FOR UPDATE`, [issue, ids]);
  return new Map(r.rows.map((row) => [Number(row.comment_id), row]));
}
