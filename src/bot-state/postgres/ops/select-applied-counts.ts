import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Times each comment's row changed, by id. */
export async function selectAppliedCounts(db: Queryable, issue: IssueKey): Promise<Map<number, number>> {
  const rows = (await db.query<{ comment_id: string; applied: number }>("SELECT comment_id, applied FROM checkpost_comments WHERE issue_key = $1", [issue])).rows;
  return new Map(rows.map((r) => [Number(r.comment_id), r.applied]));
}
