import type { IssueKey, IssueMeta } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function upsertIssueMeta(db: Queryable, issue: IssueKey, meta: IssueMeta): Promise<void> {
  await db.query("INSERT INTO checkpost_issue_meta (issue_key, meta) VALUES ($1, $2) ON CONFLICT (issue_key) DO UPDATE SET meta = excluded.meta", [issue, JSON.stringify(meta)]);
}
