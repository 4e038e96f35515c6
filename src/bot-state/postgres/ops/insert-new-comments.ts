import type { IssueKey, StoredComment } from "../../index.ts";
import { COLS, rowValues } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";
import { WATERMARK_UPSERT } from "./upsert-watermark.ts";

/** A webhook delivery's new comment, as insertNewComments takes it. */
export interface NewComment {
  issue: IssueKey;
  row: StoredComment;
  deliveryId: string;
  receivedMs: number;
  /** Unix second of the row's updatedAt (the watermark's unit). */
  second: number;
}

/** The array type of each column of COLS, in its order (unnest takes one array per column). */
const COL_TYPES = ["bigint", "text", "text", "text", "bigint", "text", "boolean", "text", "text", "boolean"];

/**
 * Webhooks' new comments, the usual deliveries, in one statement and so one round trip and one commit
 * for all of them (issue 32: a delivery was five round trips, then one statement each, which took turns
 * on the issue's watermark row until its commit). Each row is inserted unless its delivery id was seen or
 * the row exists; only for the rows inserted are the delivery ids written and each issue's watermark
 * advanced, once, by the newest second among them. Rows go in (issue, comment id) order and watermarks
 * in issue order: one lock order for every writer, so two replicas never deadlock. Returns the indexes
 * of `items` inserted; the others (a redelivery, an edit, another replica's row) wrote nothing and take
 * the general path. The caller must not put one delivery id or one (issue, comment id) in twice.
 */
export async function insertNewComments(db: Queryable, items: readonly NewComment[]): Promise<Set<number>> {
  const columns: unknown[][] = COL_TYPES.map(() => []);
  for (const it of items) for (const [k, v] of rowValues(it.row).entries()) columns[k]?.push(v);
  const args = [items.map((it) => it.issue), ...columns, items.map((it) => it.deliveryId), items.map((it) => it.receivedMs), items.map((it) => it.second)];
  const cols = COLS.split(", ");
  const r = await db.query<{ n: string }>(
    `WITH input AS (
           SELECT * FROM unnest($1::text[], ${COL_TYPES.map((t, k) => `$${k + 2}::${t}[]`).join(", ")}, $12::text[], $13::bigint[], $14::bigint[]) WITH ORDINALITY
             AS t(issue_key, ${COLS}, delivery_id, received_ms, second, n)
         ), c AS (
           INSERT INTO checkpost_comments (issue_key, ${COLS})
           SELECT issue_key, ${cols.map((x) => `i.${x}`).join(", ")} FROM input i
           WHERE NOT EXISTS (SELECT 1 FROM checkpost_deliveries d WHERE d.delivery_id = i.delivery_id)
           ORDER BY issue_key, comment_id
           ON CONFLICT DO NOTHING RETURNING issue_key, comment_id
         ), done AS (
           SELECT i.* FROM input i JOIN c USING (issue_key, comment_id)
         ), d AS (
           INSERT INTO checkpost_deliveries (delivery_id, received_ms) SELECT delivery_id, received_ms FROM done ON CONFLICT DO NOTHING
         ), top AS (
           SELECT issue_key, second, comment_id FROM done x WHERE second = (SELECT max(second) FROM done y WHERE y.issue_key = x.issue_key)
         ), wm AS (
           ${WATERMARK_UPSERT.replace("VALUES ($1, $2, $3::bigint[])", "SELECT issue_key, second, array_agg(comment_id ORDER BY comment_id) FROM top GROUP BY issue_key, second ORDER BY issue_key")}
         )
         SELECT n::text FROM done`,
    args,
  );
  return new Set(r.rows.map((x) => Number(x.n) - 1));
}
