import type { Lease } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** The lease as stored, whoever holds it; null when never taken. */
export async function selectLease(db: Queryable, name: string): Promise<Lease | null> {
  const r = await db.query<{ holder: string; token: string; expires_ms: string }>("SELECT holder, token::text, expires_ms::text FROM checkpost_leases WHERE name = $1", [name]);
  const row = r.rows[0];
  return row ? { name, holder: row.holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms) } : null;
}
