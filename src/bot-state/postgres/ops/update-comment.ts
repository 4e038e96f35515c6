import type { IssueKey, StoredComment } from "../../index.ts";
import { COLS, rowValues } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** Write a comment's newer row over its locked one, counting the change (applied) and stamping the feed (xid). */
export async function updateComment(db: Queryable, issue: IssueKey, row: StoredComment): Promise<void> {
  await db.query(
    `UPDATE checkpost_comments SET (${COLS}) = ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11), applied = applied + 1, xid = pg_current_xact_id()
       WHERE issue_key = $1 AND comment_id = $2`,
    [issue, ...rowValues(row)],
  );
}
