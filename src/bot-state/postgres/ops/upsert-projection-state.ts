import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function upsertProjectionState(db: Queryable, issue: IssueKey, state: string): Promise<void> {
  await db.query("INSERT INTO checkpost_projection_state (issue_key, state) VALUES ($1, $2) ON CONFLICT (issue_key) DO UPDATE SET state = excluded.state", [issue, state]);
}
