import type { IssueKey, StoredComment } from "../../index.ts";
import { COLS, rowValues } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** Insert a comment's first row; false when the row exists (ON CONFLICT waits for another replica's transaction). */
export async function insertComment(db: Queryable, issue: IssueKey, row: StoredComment): Promise<boolean> {
  const r = await db.query(`INSERT INTO checkpost_comments (issue_key, ${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`, [issue, ...rowValues(row)]);
  return Boolean(r.rowCount);
}
