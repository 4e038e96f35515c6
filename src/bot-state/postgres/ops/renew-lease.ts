import type { Lease } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Extend a lease still held with this token and unexpired; null when it was lost. */
export async function renewLease(db: Queryable, lease: Lease, ttlMs: number, nowMs: number | null): Promise<Lease | null> {
  const r = await db.query<{ expires_ms: string }>(
    `WITH now AS (SELECT COALESCE($5::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
         UPDATE checkpost_leases SET expires_ms = now.ms + $4 FROM now
         WHERE name = $1 AND holder = $2 AND token = $3 AND expires_ms > now.ms
         RETURNING expires_ms::text`,
    [lease.name, lease.holder, lease.token, ttlMs, nowMs],
  );
  const row = r.rows[0];
  return row ? { ...lease, expiresAtMs: Number(row.expires_ms) } : null;
}
