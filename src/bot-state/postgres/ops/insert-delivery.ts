import type { Queryable } from "./queryable.ts";

/** Record a delivery id as applied; false when it already was (a redelivery). */
export async function insertDelivery(db: Queryable, deliveryId: string, receivedMs: number): Promise<boolean> {
  const r = await db.query("INSERT INTO checkpost_deliveries (delivery_id, received_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING", [deliveryId, receivedMs]);
  return r.rowCount !== 0;
}
