import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function selectProjectionState(db: Queryable, issue: IssueKey): Promise<string | null> {
  return (await db.query<{ state: string }>("SELECT state FROM checkpost_projection_state WHERE issue_key = $1", [issue])).rows[0]?.state ?? null;
}
