import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Claim a people's command by its key; true the first time (nowMs null: PostgreSQL's clock). */
export async function insertCommandClaim(db: Queryable, issue: IssueKey, key: string, outcome: "run" | "baseline", nowMs: number | null): Promise<boolean> {
  const r = await db.query(
    "INSERT INTO checkpost_commands (issue_key, command_key, outcome, at_ms) VALUES ($1, $2, $3, COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) ON CONFLICT DO NOTHING",
    [issue, key, outcome, nowMs],
  );
  return r.rowCount === 1;
}
