import type { IssueKey, StoredComment, Watermark } from "../../index.ts";
import { COLS, rowValues } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";
import { WATERMARK_UPSERT } from "./upsert-watermark.ts";

/**
 * A webhook's new comment, the usual delivery, in one statement and so one round trip (issue 32: it was
 * five, BEGIN, delivery, comment, watermark, COMMIT): the comment row is inserted unless the delivery id
 * was seen or the row exists, and only then are the delivery id and the watermark written, all in the
 * statement's own transaction. False when it inserted nothing (a redelivery, an edit, another replica's
 * row, a race on the same delivery): nothing was written.
 */
export async function insertNewComment(db: Queryable, issue: IssueKey, row: StoredComment, deliveryId: string, receivedMs: number, w: Watermark): Promise<boolean> {
  const r = await db.query<{ inserted: number }>(
    `WITH c AS (
           INSERT INTO checkpost_comments (issue_key, ${COLS})
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
           WHERE NOT EXISTS (SELECT 1 FROM checkpost_deliveries WHERE delivery_id = $12)
           ON CONFLICT DO NOTHING RETURNING comment_id
         ), d AS (
           INSERT INTO checkpost_deliveries (delivery_id, received_ms) SELECT $12, $13 FROM c ON CONFLICT DO NOTHING
         ), wm AS (
           ${WATERMARK_UPSERT.replace("VALUES ($1, $2, $3::bigint[])", "SELECT $1, $14, $15::bigint[] FROM c")}
         )
         SELECT count(*)::int AS inserted FROM c`,
    [issue, ...rowValues(row), deliveryId, receivedMs, w.updatedAtSecond, w.idsInSecond],
  );
  return (r.rows[0]?.inserted ?? 0) > 0;
}
