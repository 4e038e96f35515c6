import type { IssueKey } from "../../index.ts";
import { COLS, type CommentRow } from "./comment-row.ts";
import type { Queryable } from "./queryable.ts";

/** A comment row of the change feed, with the id of the transaction that last wrote it. */
export interface FeedRow extends CommentRow {
  xid: string;
}

/** Rows a page of the change feed holds. */
export const FEED_PAGE = 2_000;

/** One page of an issue's change feed: rows written after (fromXid, fromId), by transaction id then comment id. */
export async function selectChangesPage(db: Queryable, issue: IssueKey, fromXid: string, fromId: number): Promise<FeedRow[]> {
  return (
    await db.query<FeedRow>(
      `SELECT ${COLS}, xid::text AS xid FROM checkpost_comments
             WHERE issue_key = $1 AND (xid > $2::xid8 OR (xid = $2::xid8 AND comment_id > $3))
             ORDER BY xid, comment_id LIMIT ${FEED_PAGE}`,
      [issue, fromXid, fromId],
    )
  ).rows;
}
