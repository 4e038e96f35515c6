import type { AgentEntry } from "../../../projection/index.ts";
import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** An issue's entries sorted by agent then session. */
export async function selectEntries(db: Queryable, issue: IssueKey): Promise<AgentEntry[]> {
  return (await db.query<{ entry: AgentEntry }>("SELECT entry FROM checkpost_entries WHERE issue_key = $1 ORDER BY agent, session", [issue])).rows.map((r) => r.entry);
}
