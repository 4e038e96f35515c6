import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Issues with anything stored, sorted. */
export async function selectIssues(db: Queryable): Promise<IssueKey[]> {
  const r = await db.query<{ k: string }>(
    `SELECT issue_key AS k FROM checkpost_comments UNION SELECT issue_key FROM checkpost_watermarks UNION SELECT issue_key FROM checkpost_entries
         UNION SELECT issue_key FROM checkpost_resume_index UNION SELECT issue_key FROM checkpost_alerts UNION SELECT issue_key FROM checkpost_issue_meta ORDER BY 1`,
  );
  return r.rows.map((x) => x.k);
}
