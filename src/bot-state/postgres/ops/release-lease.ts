import type { Lease } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Expire a lease now, if still held with this token. */
export async function releaseLease(db: Queryable, lease: Lease, nowMs: number | null): Promise<void> {
  await db.query(
    `UPDATE checkpost_leases SET expires_ms = LEAST(expires_ms, COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint))
         WHERE name = $1 AND holder = $2 AND token = $3`,
    [lease.name, lease.holder, lease.token, nowMs],
  );
}
