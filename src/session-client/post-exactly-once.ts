import { type MsClock, systemMs } from "../clock.ts";
import type { HostComment, IssueHost, RepoRef } from "../ports/issue-host.ts";

/** How far before an attempt (server clock) to look for our own comment after an unknown outcome. */
const LOOKBACK_MS = 60_000;

/**
 * POST a comment at most once. When an attempt's outcome is unknown (reset,
 * timeout, 5xx after sending), the next attempt first looks for `marker`
 * (the checkpoint's unique `Id:` line) among comments updated since just
 * before the first attempt, and returns that comment instead of posting again.
 * With no fault, this is exactly one request. `now` is our clock (the host's is it plus its offset).
 */
export async function postExactlyOnce(api: IssueHost, repo: RepoRef, issue: number, body: string, marker: string, now: MsClock = systemMs): Promise<HostComment> {
  let firstAttemptServerMs: number | null = null;
  let unknown = false;
  return api.withRetry(async () => {
    if (unknown && firstAttemptServerMs !== null) {
      const found = (await api.listCommentsSince(repo, issue, { sinceMs: firstAttemptServerMs - LOOKBACK_MS })).find((c) => c.body.includes(marker));
      if (found) return found;
    }
    firstAttemptServerMs ??= now() + api.serverClockOffsetMs;
    try {
      return await api.postRecord(repo, issue, body, { retry: false });
    } catch (e) {
      unknown ||= api.isOutcomeUnknown(e);
      throw e;
    }
  }, "save");
}
