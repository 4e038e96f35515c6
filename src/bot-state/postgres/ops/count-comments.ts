import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Number of live (not deleted) comments of an issue. */
export async function countComments(db: Queryable, issue: IssueKey): Promise<number> {
  return (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM checkpost_comments WHERE issue_key = $1 AND NOT deleted", [issue])).rows[0]?.n ?? 0;
}
