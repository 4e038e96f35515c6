import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import type { CommentEvent } from "../projection/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../session-client/index.ts";
import { issueKey } from "./issue-key.ts";
import type { CommentLog } from "./projection-store.ts";

/**
 * Forget what the store holds about one session issue and read it again, whole,
 * from Forgejo (`checkpost rebuild`). Entries are not derived here: they depend
 * on the bot's trust policy, and the bot derives and stores them from these
 * comments when it next starts. Returns the number of live comments stored.
 */
export async function rebuildIssue(o: { api: IssueHost; store: CommentLog; repo: RepoRef; issue: number; readWindowSize?: number }): Promise<number> {
  const key = issueKey(o.repo, o.issue);
  await o.store.clearIssue(key);
  let folding = Promise.resolve();
  await forEachCommentBatch(
    o.api,
    o.repo,
    o.issue,
    (batch) => {
      const events: CommentEvent[] = batch.map((c) => ({ type: "upsert", comment: toCommentRecord(c) }));
      folding = folding.then(async () => void (await o.store.applyDelivery(key, null, events)));
      // Awaited by the reader: it reads no further ahead than this batch (see forEachCommentBatch).
      return folding;
    },
    o.readWindowSize ? { windowSize: o.readWindowSize } : {},
  );
  await folding;
  return o.store.commentCount(key);
}
