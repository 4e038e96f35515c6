import type { ResumeIndex } from "../../../dashboard/index.ts";
import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Store the resume index written under this fencing token. */
export async function upsertResumeIndex(db: Queryable, issue: IssueKey, index: ResumeIndex, token: number): Promise<void> {
  await db.query("INSERT INTO checkpost_resume_index (issue_key, index, token) VALUES ($1, $2, $3) ON CONFLICT (issue_key) DO UPDATE SET index = excluded.index, token = excluded.token", [
    issue,
    JSON.stringify(index),
    token,
  ]);
}
