import type { Fence } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Open a write-log row for a Forgejo write begun under this fence; returns its id. */
export async function insertWriteLog(db: Queryable, fence: Fence & { holder: string }, kind: string, startedMs: number): Promise<string> {
  const r = await db.query<{ id: string }>("INSERT INTO checkpost_write_log (name, kind, holder, token, started_ms) VALUES ($1, $2, $3, $4, $5) RETURNING id::text", [
    fence.name,
    kind,
    fence.holder,
    fence.token,
    startedMs,
  ]);
  return r.rows[0]?.id as string;
}
