import { type MsClock, systemMs } from "../clock.ts";
import type { HostComment, IssueHost, RepoRef } from "../ports/issue-host.ts";

export interface ReadAllOptions {
  /** Issues with more comments than this are read in windows of updated time. Default 2,000. */
  windowSize?: number;
  /** Windows read at once. Default 2. */
  concurrency?: number;
  /** The issue, when the caller already has it (saves a GET). */
  issueMeta?: { commentCount?: number | undefined; createdAt: string };
  /** Our clock, for when a windowed scan begins (the host's clock is it plus its offset). Default: the system clock. */
  now?: MsClock;
}

/**
 * Every comment of an issue. Forgejo does not page this endpoint, so a 50,000-
 * comment issue answers one ~80 MiB response, and a process that parses it
 * balloons past 1 GiB. Large issues (by the issue's `comments` count) are read
 * instead in windows of updated time, which Forgejo filters inclusively at both
 * ends (`updated_unix >= since` and `<= before`): windows share only their
 * boundary second, and duplicates are dropped by id. A comment edited during
 * the scan can move into a window already read, so a last read `since` the
 * scan began catches it. The result equals one unfiltered read.
 */
export async function readAllComments(api: IssueHost, repo: RepoRef, issue: number, options: ReadAllOptions = {}): Promise<HostComment[]> {
  const byId = new Map<number, HostComment>();
  await forEachCommentBatch(
    api,
    repo,
    issue,
    (list) => {
      for (const c of list) {
        const held = byId.get(c.id);
        if (!held || Date.parse(c.updatedAt) >= Date.parse(held.updatedAt)) byId.set(c.id, c);
      }
    },
    options,
  );
  return [...byId.values()].sort((x, y) => x.id - y.id);
}

/**
 * The same reads as `readAllComments`, handed over one response at a time, so
 * a caller that folds them (the bot's projection) never holds the whole list.
 * A comment may come in two batches (a shared boundary second, or an edit
 * during the scan): callers must keep the newest `updated_at` per id.
 * A promise returned by `onBatch` holds that reader back until it settles:
 * a caller folding slower than Forgejo answers then holds at most one batch
 * per reader, not every response read so far.
 *
 * Resolves to the host's time (ms, a lower bound: our clock plus the offset learnt from the host's
 * last answer, whose `Date` is whole seconds, rounded down) when the last request was sent, the one
 * that lists up to now: every comment updated before it was committed by then was listed.
 */
export async function forEachCommentBatch(api: IssueHost, repo: RepoRef, issue: number, onBatch: (comments: HostComment[]) => void | Promise<void>, options: ReadAllOptions = {}): Promise<number> {
  const windowSize = options.windowSize ?? 2000;
  const meta = options.issueMeta ?? (await api.readIssue(repo, issue));
  const hostNow = () => (options.now ?? systemMs)() + api.serverClockOffsetMs;
  if ((meta.commentCount ?? Number.POSITIVE_INFINITY) <= windowSize) {
    const sentAt = hostNow();
    await onBatch(await api.listCommentsSince(repo, issue));
    return sentAt;
  }

  const scanStart = Math.floor(((options.now ?? systemMs)() + api.serverClockOffsetMs) / 1000) - 1;
  const from = Math.floor(Date.parse(meta.createdAt) / 1000) - 1;
  const to = scanStart + 2;
  const windows = Math.max(1, Math.ceil((meta.commentCount ?? 0) / windowSize));
  const step = Math.max(1, Math.ceil((to - from) / windows));
  const bounds: [number, number][] = [];
  for (let a = from; a < to; a += step) bounds.push([a, Math.min(to, a + step)]);
  // Migrated comments may predate the issue: the first window reaches back to the epoch.
  (bounds[0] as [number, number])[0] = 1;

  let next = 0;
  const worker = async () => {
    while (next < bounds.length) {
      const [a, b] = bounds[next++] as [number, number];
      await onBatch(await api.listCommentsSince(repo, issue, { sinceMs: a * 1000, untilMs: b * 1000 }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 2, bounds.length) }, worker));
  const sentAt = hostNow();
  await onBatch(await api.listCommentsSince(repo, issue, { sinceMs: scanStart * 1000 }));
  return sentAt;
}
