import type { IssueKey, Watermark } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function selectWatermark(db: Queryable, issue: IssueKey): Promise<Watermark | null> {
  const r = (await db.query<{ s: string; ids: string[] }>("SELECT updated_at_second::text AS s, ids_in_second::text[] AS ids FROM checkpost_watermarks WHERE issue_key = $1", [issue])).rows[0];
  return r ? { updatedAtSecond: Number(r.s), idsInSecond: r.ids.map(Number) } : null;
}
