import type { FeedCursor } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** The feed position now: the oldest transaction still running (one that commits later is still read from here). */
export async function selectFeedCursor(db: Queryable): Promise<FeedCursor> {
  return (await db.query<{ x: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x")).rows[0]?.x ?? "0";
}
