import type { CommentEvent } from "../../projection/index.ts";
import type { ReplicaStore } from "../index.ts";
import { toStored } from "./ops/comment-row.ts";
import { closeWriteLog } from "./ops/close-write-log.ts";
import { countReplicas } from "./ops/count-replicas.ts";
import { deleteReplica } from "./ops/delete-replica.ts";
import { insertWriteLog } from "./ops/insert-write-log.ts";
import { FEED_PAGE, type FeedRow, selectChangesPage } from "./ops/select-changes-page.ts";
import { selectCurrentLease } from "./ops/select-current-lease.ts";
import { selectFeedCursor } from "./ops/select-feed-cursor.ts";
import { selectWriteLog } from "./ops/select-write-log.ts";
import { upsertReplica } from "./ops/upsert-replica.ts";
import { feedEvents } from "./feed-events.ts";
import type { StoreConnection } from "./store-connection.ts";

/** What replicas use besides the ProjectionStore, less the connection's own (available, ping, listenChanges). */
export type ReplicaFeed = Omit<ReplicaStore, "available" | "ping" | "listenChanges">;

/**
 * The replica side of the PostgreSQL store: the change feed of what other replicas stored, the heartbeat
 * that shares the leases out, and the log of Forgejo writes begun under a lease.
 */
export function postgresReplicaFeed(db: StoreConnection): ReplicaFeed {
  return {
    feedCursor: () => db.guard(() => selectFeedCursor(db.pool)),
    /**
     * Rows are found by the id of the transaction that last wrote them; the next cursor is the oldest
     * transaction still running when this read began, so one that commits late is still seen (a row
     * may come twice; folding is idempotent).
     */
    readChanges: (issue, cursor) =>
      db.guard(async () => {
        const xmin = await selectFeedCursor(db.pool);
        const events: CommentEvent[] = [];
        let fromXid = cursor ?? "0";
        let fromId = -1;
        for (;;) {
          const rows = await selectChangesPage(db.pool, issue, fromXid, fromId);
          for (const r of rows) events.push(...feedEvents(toStored(r)));
          if (rows.length < FEED_PAGE) break;
          const last = rows[rows.length - 1] as FeedRow;
          fromXid = last.xid;
          fromId = Number(last.comment_id);
        }
        return { events, cursor: xmin };
      }),
    heartbeat: (replicaId, withinMs) =>
      db.guard(async () => {
        const now = db.nowParam();
        await upsertReplica(db.pool, replicaId, now);
        return (await countReplicas(db.pool, withinMs, now)) ?? 1;
      }),
    forgetReplica: (replicaId) => db.guard(() => deleteReplica(db.pool, replicaId)),
    /**
     * Begun only if the fence is the lease's current, unexpired token (checked and logged in one
     * transaction holding the lease row, so a takeover cannot interleave), else StaleLeaseError and
     * `write` is not called. The log row is closed when the write returns.
     */
    fencedWrite: async (fence, kind, write) => {
      const id = await db.fenced(fence, (c, nowMs) => insertWriteLog(c, fence, kind, nowMs));
      try {
        return await write();
      } finally {
        await closeWriteLog(db.pool, id, db.nowParam()).catch((e: unknown) => db.log?.warn({ err: e }, "could not close a write-log row"));
      }
    },
    writeLog: (name) => db.guard(() => selectWriteLog(db.pool, name)),
    currentLease: (name) => db.guard(() => selectCurrentLease(db.pool, name, db.nowParam())),
  };
}
