import type { Queryable } from "./queryable.ts";

/** Note a replica as seen now (nowMs null: PostgreSQL's clock). */
export async function upsertReplica(db: Queryable, replicaId: string, nowMs: number | null): Promise<void> {
  await db.query(
    "INSERT INTO checkpost_replicas (replica_id, seen_ms) VALUES ($1, COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) ON CONFLICT (replica_id) DO UPDATE SET seen_ms = excluded.seen_ms",
    [replicaId, nowMs],
  );
}
