import type { CommentEvent } from "../../projection/index.ts";
import { foldStoredComment } from "../fold-stored-comment.ts";
import type { IssueKey, StoredComment } from "../index.ts";
import { type CommentRow, toStored } from "./ops/comment-row.ts";
import { insertComment } from "./ops/insert-comment.ts";
import { BULK_INSERT_ROWS, insertComments } from "./ops/insert-comments.ts";
import { lockComment } from "./ops/lock-comment.ts";
import { lockComments } from "./ops/lock-comments.ts";
import type { Queryable } from "./ops/queryable.ts";
import { updateComment } from "./ops/update-comment.ts";

const idOf = (e: CommentEvent) => (e.type === "delete" ? e.commentId : e.comment.id);

/**
 * Fold a batch of events (in comment id order) into their rows, inside the caller's transaction, and
 * add to `changed` the events that changed a row. A first read stores thousands of comments: one
 * row-locking SELECT for all of them and multi-row INSERTs (BULK_INSERT_ROWS a statement) instead of a
 * SELECT and an INSERT each (6.3 s at 10k comments, issue 22). A batch that names a comment twice, or a
 * row another replica inserted meanwhile, takes the one-by-one path.
 */
export async function applyEvents(c: Queryable, issue: IssueKey, ordered: readonly CommentEvent[], changed: Set<CommentEvent>): Promise<void> {
  const ids = ordered.map(idOf);
  if (ordered.length < 4 || new Set(ids).size !== ids.length) {
    for (const e of ordered) if (await applyOne(c, issue, e)) changed.add(e);
    return;
  }
  const held = await lockComments(c, issue, ids);
  const fresh: { e: CommentEvent; row: StoredComment }[] = [];
  for (const [i, e] of ordered.entries()) {
    const row = held.get(ids[i] as number);
    if (row) {
      if (await foldInto(c, issue, e, row)) changed.add(e);
      continue;
    }
    const first = foldStoredComment(undefined, e);
    if (first) fresh.push({ e, row: first });
  }
  for (let at = 0; at < fresh.length; at += BULK_INSERT_ROWS) {
    const chunk = fresh.slice(at, at + BULK_INSERT_ROWS);
    const inserted = await insertComments(
      c,
      issue,
      chunk.map((x) => x.row),
    );
    for (const { e, row } of chunk) {
      if (inserted.has(row.id)) changed.add(e);
      // Another replica inserted it meanwhile: fold onto its row, one by one.
      else if (await applyOne(c, issue, e)) changed.add(e);
    }
  }
}

/** Fold one event onto its locked row; true when the row changed. */
async function foldInto(c: Queryable, issue: IssueKey, e: CommentEvent, row: CommentRow): Promise<boolean> {
  const next = foldStoredComment(toStored(row), e);
  if (!next) return false;
  await updateComment(c, issue, next);
  return true;
}

/**
 * Fold one event into its row under a row lock (foldStoredComment, the rule
 * the SQLite store uses too). True when the row changed.
 */
async function applyOne(c: Queryable, issue: IssueKey, e: CommentEvent): Promise<boolean> {
  // A webhook's comment is almost always new: insert first (one round trip), and read and lock the row
  // only when it is already there (an edit, a redelivery, another replica's insert: ON CONFLICT waits
  // for that replica's transaction).
  const first = foldStoredComment(undefined, e);
  if (first && (await insertComment(c, issue, first))) return true;
  const row = await lockComment(c, issue, idOf(e));
  if (!row) {
    if (first) throw new Error(`comment ${idOf(e)} vanished while being stored`);
    return false;
  }
  return foldInto(c, issue, e, row);
}
