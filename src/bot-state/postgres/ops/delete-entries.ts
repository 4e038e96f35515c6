import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Delete the entries of these agent+sessions, in one statement. */
export async function deleteEntries(db: Queryable, issue: IssueKey, removed: readonly { agent: string; session: string }[]): Promise<void> {
  await db.query(`DELETE FROM checkpost_entries WHERE issue_key = $1 AND (agent, session) IN (SELECT a COLLATE "C", s COLLATE "C" FROM unnest($2::text[], $3::text[]) AS t(a, s))`, [
    issue,
    removed.map((r) => r.agent),
    removed.map((r) => r.session),
  ]);
}
