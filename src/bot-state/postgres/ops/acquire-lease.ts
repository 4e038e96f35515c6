import type { Lease } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/**
 * Take a lease that is free, expired or already this holder's: a new token, one above the last. Null
 * when another holder's lease is unexpired. Expiry is judged by `nowMs`, or PostgreSQL's clock when null.
 */
export async function acquireLease(db: Queryable, name: string, holder: string, ttlMs: number, nowMs: number | null): Promise<Lease | null> {
  const r = await db.query<{ token: string; expires_ms: string }>(
    `WITH now AS (SELECT COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
         INSERT INTO checkpost_leases AS l (name, holder, token, expires_ms, acquired_ms)
         SELECT $1, $2, 1, now.ms + $3, now.ms FROM now
         ON CONFLICT (name) DO UPDATE
           SET holder = excluded.holder, token = l.token + 1, expires_ms = excluded.expires_ms, acquired_ms = excluded.acquired_ms
           WHERE l.expires_ms <= excluded.acquired_ms OR l.holder = excluded.holder
         RETURNING token::text, expires_ms::text`,
    [name, holder, ttlMs, nowMs],
  );
  const row = r.rows[0];
  return row ? { name, holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms) } : null;
}
