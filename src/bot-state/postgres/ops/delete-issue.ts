import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** The tables clearIssue empties for an issue (leases, claimed commands and deliveries are kept). */
const ISSUE_TABLES = ["checkpost_comments", "checkpost_watermarks", "checkpost_entries", "checkpost_resume_index", "checkpost_alerts", "checkpost_issue_meta", "checkpost_projection_state"];

/** Delete everything stored about an issue: one DELETE a table, run inside the caller's transaction. */
export async function deleteIssue(db: Queryable, issue: IssueKey): Promise<void> {
  for (const t of ISSUE_TABLES) await db.query(`DELETE FROM ${t} WHERE issue_key = $1`, [issue]);
}
