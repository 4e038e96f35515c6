import type { Queryable } from "./queryable.ts";

/** Forget delivery ids received before this time; returns how many. */
export async function deleteDeliveries(db: Queryable, olderThanMs: number): Promise<number> {
  return (await db.query("DELETE FROM checkpost_deliveries WHERE received_ms < $1", [olderThanMs])).rowCount ?? 0;
}
