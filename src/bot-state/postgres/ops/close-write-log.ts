import type { Queryable } from "./queryable.ts";

/** Close a write-log row: its write returned (nowMs null: PostgreSQL's clock). */
export async function closeWriteLog(db: Queryable, id: string, nowMs: number | null): Promise<void> {
  await db.query("UPDATE checkpost_write_log SET ended_ms = COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) WHERE id = $1", [id, nowMs]);
}
