import type { ResumeIndex } from "../../../dashboard/index.ts";
import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function selectResumeIndex(db: Queryable, issue: IssueKey): Promise<ResumeIndex | null> {
  return (await db.query<{ index: ResumeIndex }>("SELECT index FROM checkpost_resume_index WHERE issue_key = $1", [issue])).rows[0]?.index ?? null;
}
