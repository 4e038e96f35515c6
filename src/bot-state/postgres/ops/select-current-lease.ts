import type { Lease } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/**
 * The lease as stored, whoever holds it (null: never taken), and whether it is unexpired by `nowMs`
 * (PostgreSQL's clock when null).
 */
export async function selectCurrentLease(db: Queryable, name: string, nowMs: number | null): Promise<(Lease & { live: boolean }) | null> {
  const row = (
    await db.query<{ holder: string; token: string; expires_ms: string; live: boolean }>(
      `SELECT holder, token::text, expires_ms::text, expires_ms > COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS live
           FROM checkpost_leases WHERE name = $1`,
      [name, nowMs],
    )
  ).rows[0];
  return row ? { name, holder: row.holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms), live: row.live } : null;
}
