import type { IssueKey, Watermark } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/**
 * Merge a batch's watermark ($2 second, $3 ids) into the stored one: an older second changes nothing, the
 * same second adds its ids, a newer one replaces them (advanceWatermark's fold, in SQL).
 */
export const WATERMARK_UPSERT = `INSERT INTO checkpost_watermarks AS w (issue_key, updated_at_second, ids_in_second) VALUES ($1, $2, $3::bigint[])
       ON CONFLICT (issue_key) DO UPDATE SET
         updated_at_second = excluded.updated_at_second,
         ids_in_second = CASE WHEN w.updated_at_second = excluded.updated_at_second
           THEN ARRAY(SELECT DISTINCT x FROM unnest(w.ids_in_second || excluded.ids_in_second) AS x ORDER BY x)
           ELSE excluded.ids_in_second END
       WHERE w.updated_at_second < excluded.updated_at_second
          OR (w.updated_at_second = excluded.updated_at_second AND NOT (w.ids_in_second @> excluded.ids_in_second))`;

/** One statement, no read first: the batch's own watermark merged with the stored one (WATERMARK_UPSERT). */
export async function upsertWatermark(db: Queryable, issue: IssueKey, w: Watermark): Promise<void> {
  await db.query(WATERMARK_UPSERT, [issue, w.updatedAtSecond, w.idsInSecond]);
}
