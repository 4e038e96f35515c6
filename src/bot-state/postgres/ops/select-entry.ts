import type { AgentEntry } from "../../../projection/index.ts";
import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function selectEntry(db: Queryable, issue: IssueKey, agent: string, session: string): Promise<AgentEntry | null> {
  return (await db.query<{ entry: AgentEntry }>("SELECT entry FROM checkpost_entries WHERE issue_key = $1 AND agent = $2 AND session = $3", [issue, agent, session])).rows[0]?.entry ?? null;
}
