import type { HostComment, HostIssue, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { SessionChainError } from "../errors.ts";
import { followableSuccessor, successorNamed } from "./chain-rules.ts";

/** The reads a chain walk needs (a narrow port of IssueHost, so a test can count or fake them). */
export type ChainReader = Pick<IssueHost, "readIssue" | "listCommentsSince">;

/** At most this many links are followed forward (a loop of forged links cannot run forever). */
export const MAX_HOPS = 64;

/**
 * The bot leaves its `continued-in` comment just before it closes the issue;
 * comments updated from this long before `closed_at` are read first (one
 * `since` read), and every comment only when none is found there (a person
 * closed and reopened it, say).
 */
const CLOSE_LOOKBACK_MS = 10 * 60_000;

export interface OpenHead {
  /** The open issue at the head of the chain (read just now). */
  head: HostIssue;
  /** Every closed issue followed to get there, in order (empty: the start was open). */
  passed: number[];
  /** Requests made. */
  requests: number;
}

/**
 * From any issue of a session chain to its open head: an issue found closed
 * is never trusted as the place to read or write, its successor is followed
 * (docs/chain.md). Costs one read of `start` when it is open (or none when
 * `start` is an issue already read), then two reads per rollover passed: the
 * tail of the closed issue's comments, and the successor. Each link is checked
 * by `followableSuccessor`: a link to an issue not opened by a trusted login
 * (the bot's), or not linking back, ends the walk with an error.
 */
export async function findOpenHead(
  api: ChainReader,
  repo: RepoRef,
  start: number | HostIssue,
  trusted: ReadonlySet<string>,
  opts: { listAll?: (issue: number) => Promise<HostComment[]> } = {},
): Promise<OpenHead> {
  let requests = typeof start === "number" ? 1 : 0;
  let issue = typeof start === "number" ? await api.readIssue(repo, start) : start;
  const passed: number[] = [];
  while (issue.state !== "open") {
    if (passed.length >= MAX_HOPS) throw new SessionChainError(`followed ${MAX_HOPS} rollovers from #${passed[0]} without reaching an open issue; pass --issue N with the open session issue`);
    passed.push(issue.number);
    const closedAt = typeof issue.closedAt === "string" ? Date.parse(issue.closedAt) : Number.NaN;
    let named: ReturnType<typeof successorNamed> = null;
    if (!Number.isNaN(closedAt)) {
      requests++;
      named = successorNamed(await api.listCommentsSince(repo, issue.number, { sinceMs: closedAt - CLOSE_LOOKBACK_MS }), trusted);
    }
    if (!named) {
      requests++;
      named = successorNamed(opts.listAll ? await opts.listAll(issue.number) : await api.listCommentsSince(repo, issue.number), trusted);
    }
    if (!named)
      throw new SessionChainError(`session issue #${issue.number} is closed and no trusted "continued in" comment names its successor; reopen it, or pass --issue N with the open session issue`);
    requests++;
    const next = await api.readIssue(repo, named.successor);
    if (!followableSuccessor(next, { previous: issue.number, title: issue.title, trusted, linkAuthor: named.author }))
      throw new SessionChainError(
        `session issue #${issue.number} names #${next.number} as its successor, but #${next.number} was not opened by ${named.author} or does not link back to #${issue.number}: not followed (docs/security.md, rollover)`,
      );
    issue = next;
  }
  return { head: issue, passed, requests };
}
