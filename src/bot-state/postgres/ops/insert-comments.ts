import type { IssueKey, StoredComment } from "../../index.ts";
import { COLS, rowValues } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** Rows a multi-row INSERT carries (10 parameters each, far below PostgreSQL's 65,535). */
export const BULK_INSERT_ROWS = 500;

/**
 * Insert first rows in one multi-row statement (at most BULK_INSERT_ROWS of them); returns the ids it
 * inserted: a row another replica inserted meanwhile is left out.
 */
export async function insertComments(db: Queryable, issue: IssueKey, rows: readonly StoredComment[]): Promise<Set<number>> {
  const args: unknown[] = [issue];
  const tuples = rows.map((row) => {
    const values = rowValues(row);
    const first = args.length + 1;
    args.push(...values);
    return `($1, ${values.map((_, k) => `$${first + k}`).join(", ")})`;
  });
  const r = await db.query<{ comment_id: string }>(`INSERT INTO checkpost_comments (issue_key, ${COLS}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING RETURNING comment_id::text`, args);
  return new Set(r.rows.map((x) => Number(x.comment_id)));
}
