import type { CommentQuery, IssueKey, StoredComment } from "../../index.ts";
import { COLS, type CommentRow, toStored } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** The stored comments of an issue, ascending by id, as CommentLog.comments describes the query. */
export async function selectComments(db: Queryable, issue: IssueKey, q: CommentQuery): Promise<StoredComment[]> {
  const where = ["issue_key = $1"];
  const args: unknown[] = [issue];
  if (q.afterId !== undefined) where.push(`comment_id > $${args.push(q.afterId)}`);
  if (q.ids !== undefined) where.push(`comment_id = ANY($${args.push([...q.ids])}::bigint[])`);
  const limit = q.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(q.limit))}` : "";
  const cols = q.bodies === false ? `${COLS.replace("body,", "NULL::text AS body,")}, body IS NOT NULL AS has_body` : COLS;
  return (await db.query<CommentRow & { has_body?: boolean }>(`SELECT ${cols} FROM checkpost_comments WHERE ${where.join(" AND ")} ORDER BY comment_id${limit}`, args)).rows.map((r) =>
    r.has_body ? { ...toStored(r), bodyOmitted: true } : toStored(r),
  );
}
