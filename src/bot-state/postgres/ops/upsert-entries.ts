import type { AgentEntry } from "../../../projection/index.ts";
import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Insert or replace these entries in one statement (a first start writes every entry: one INSERT a row was a round trip each). */
export async function upsertEntries(db: Queryable, issue: IssueKey, entries: readonly AgentEntry[]): Promise<void> {
  await db.query(
    `INSERT INTO checkpost_entries (issue_key, agent, session, entry) SELECT $1, a, s, e::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS t(a, s, e)
           ON CONFLICT (issue_key, agent, session) DO UPDATE SET entry = excluded.entry`,
    [issue, entries.map((e) => e.agent), entries.map((e) => e.session), entries.map((e) => JSON.stringify(e))],
  );
}
