import type { WriteLogRow } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** The writes begun under leases (of one lease name, or all), oldest first. */
export async function selectWriteLog(db: Queryable, name?: string): Promise<WriteLogRow[]> {
  const r = await db.query<{ name: string; kind: string; holder: string; token: string; started_ms: string; ended_ms: string | null }>(
    `SELECT name, kind, holder, token::text, started_ms::text, ended_ms::text FROM checkpost_write_log ${name ? "WHERE name = $1" : ""} ORDER BY started_ms, id`,
    name ? [name] : [],
  );
  return r.rows.map((x) => ({ name: x.name, kind: x.kind, holder: x.holder, token: Number(x.token), startedMs: Number(x.started_ms), endedMs: x.ended_ms === null ? null : Number(x.ended_ms) }));
}
