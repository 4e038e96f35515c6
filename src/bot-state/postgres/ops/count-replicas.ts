import type { Queryable } from "./queryable.ts";

/** Replicas seen within `withinMs` of now (nowMs null: PostgreSQL's clock). */
export async function countReplicas(db: Queryable, withinMs: number, nowMs: number | null): Promise<number | undefined> {
  const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM checkpost_replicas WHERE seen_ms > COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) - $1", [
    withinMs,
    nowMs,
  ]);
  return r.rows[0]?.n;
}
