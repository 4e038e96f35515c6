import type { Fence } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/**
 * Lock a lease row FOR SHARE (a takeover's UPDATE waits for the caller's transaction) and read its token,
 * whether it is unexpired, and the time it was judged by. Undefined when the lease was never taken.
 */
export async function lockFence(db: Queryable, fence: Fence, nowMs: number | null): Promise<{ token: number; live: boolean; nowMs: number } | undefined> {
  const row = (
    await db.query<{ token: string; live: boolean; now_ms: string }>(
      `WITH now AS (SELECT COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
           SELECT token::text, expires_ms > now.ms AS live, now.ms::text AS now_ms FROM checkpost_leases, now WHERE name = $1 FOR SHARE OF checkpost_leases`,
      [fence.name, nowMs],
    )
  ).rows[0];
  return row ? { token: Number(row.token), live: row.live, nowMs: Number(row.now_ms) } : undefined;
}
