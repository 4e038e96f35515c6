import pg from "pg";
import type { CommentEvent } from "../../projection/index.ts";
import { advanceWatermarkAll } from "../advance-watermark-all.ts";
import { foldStoredComment } from "../fold-stored-comment.ts";
import type { ApplyResult, CommentLog, IssueKey } from "../index.ts";
import { applyEvents } from "./apply-events.ts";
import { countComments } from "./ops/count-comments.ts";
import { deleteDeliveries } from "./ops/delete-deliveries.ts";
import { deleteIssue } from "./ops/delete-issue.ts";
import { insertDelivery } from "./ops/insert-delivery.ts";
import { insertNewComments } from "./ops/insert-new-comments.ts";
import { NewCommentBatches } from "./new-comment-batches.ts";
import { selectComments } from "./ops/select-comments.ts";
import { selectIssues } from "./ops/select-issues.ts";
import { selectWatermark } from "./ops/select-watermark.ts";
import { upsertWatermark } from "./ops/upsert-watermark.ts";
import type { StoreConnection } from "./store-connection.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

const DELIVERY_DEADLINE_MS = 6_000;

/** The CommentLog port on PostgreSQL: what deliveries, polls and reconciles stored, shared by every replica. */
export function postgresCommentLog(db: StoreConnection): CommentLog {
  /**
   * The general path: in one transaction, the delivery id, the events in comment id order (one lock order
   * for every transaction, so two replicas storing overlapping lists never deadlock), the watermark.
   */
  const applyNow = async (issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): Promise<ApplyResult> => {
    const only = events.length === 1 ? events[0] : undefined;
    if (deliveryId !== null && only?.type === "upsert" && (await insertFirst(issue, deliveryId, only))) return { duplicate: false, changed: [only] };
    return db.tx(async (c) => {
      if (deliveryId !== null && !(await insertDelivery(c, deliveryId, db.nowMs()))) return { duplicate: true, changed: [] };
      const changed = new Set<CommentEvent>();
      const idOf = (e: CommentEvent) => (e.type === "delete" ? e.commentId : e.comment.id);
      await applyEvents(
        c,
        issue,
        [...events].sort((a, b) => idOf(a) - idOf(b)),
        changed,
      );
      // One statement, no read first: the batch's own watermark (advanceWatermarkAll from nothing) merged with the stored one.
      const w = advanceWatermarkAll(
        null,
        events.flatMap((e) => (e.type === "upsert" ? [{ id: e.comment.id, updatedAt: e.comment.updatedAt }] : [])),
      );
      if (w) await upsertWatermark(c, issue, w);
      return { duplicate: false, changed: events.filter((e) => changed.has(e)) };
    });
  };

  /** Webhooks' new comments, written together while a batch is in flight (NewCommentBatches, insertNewComments). */
  const batches = new NewCommentBatches(
    (items) => db.guard(() => insertNewComments(db.pool, items)),
    // PostgreSQL refused the statement (a row it cannot take): the server is up, so each is tried alone.
    (e) => e instanceof StoreUnavailableError && e.cause instanceof pg.DatabaseError,
  );
  /** A webhook's new comment in its batch's one statement; false: the caller takes the general path. */
  const insertFirst = async (issue: IssueKey, deliveryId: string, e: CommentEvent & { type: "upsert" }): Promise<boolean> => {
    const row = foldStoredComment(undefined, e);
    const second = Math.floor(Date.parse(e.comment.updatedAt) / 1000);
    if (!row || !Number.isFinite(second)) return false;
    return batches.add({ issue, row, deliveryId, receivedMs: db.nowMs(), second });
  };

  return {
    /**
     * A webhook delivery's is bounded by a deadline (DELIVERY_DEADLINE_MS): Probot answers a webhook 202
     * after 9 s whatever the handler does, which would acknowledge what was not
     * stored; a late failure is a 503 instead. (The transaction may still commit
     * after the deadline: the redelivery is then a duplicate, which is harmless.)
     */
    applyDelivery: async (issue, deliveryId, events) => {
      // Reads (poll, reconcile: no delivery id) have no one waiting on an answer: no deadline.
      if (deliveryId === null) return applyNow(issue, deliveryId, events);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailableError(`PostgreSQL store: no answer within ${DELIVERY_DEADLINE_MS} ms`)), DELIVERY_DEADLINE_MS);
      });
      return Promise.race([applyNow(issue, deliveryId, events), late]).finally(() => clearTimeout(timer));
    },
    comments: (issue, q = {}) => db.guard(() => selectComments(db.pool, issue, q)),
    commentCount: (issue) => db.guard(() => countComments(db.pool, issue)),
    watermark: (issue) => db.guard(() => selectWatermark(db.pool, issue)),
    clearIssue: (issue) => db.tx((c) => deleteIssue(c, issue)),
    issues: () => db.guard(() => selectIssues(db.pool)),
    pruneDeliveries: (olderThanMs) => db.guard(() => deleteDeliveries(db.pool, olderThanMs)),
  };
}
