import type { Queryable } from "./queryable.ts";

/** NOTIFY a channel with a payload (delivered to its listeners when the statement's transaction commits). */
export async function sendNotify(db: Queryable, channel: string, payload: string): Promise<void> {
  await db.query("SELECT pg_notify($1, $2)", [channel, payload]);
}
