import type { HostIssue, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { continuedFrom } from "./chain-links.ts";
import { followablePredecessor } from "./chain-rules.ts";

/** At most this many issues are followed back (a loop of forged markers cannot run forever). */
const MAX_CHAIN = 1000;

/**
 * A session issue and every issue it continues, oldest first, by the
 * `continues` marker each successor's body carries (rollover). Only markers in
 * issues that share the newest one's title are followed, and with `trusted`
 * only in issues a trusted login opened (the chain rule, docs/chain.md).
 */
export async function issueChain(api: IssueHost, repo: RepoRef, newest: number, trusted?: ReadonlySet<string>): Promise<HostIssue[]> {
  const chain: HostIssue[] = [];
  const seen = new Set<number>();
  let next: number | null = newest;
  while (next !== null && !seen.has(next) && chain.length < MAX_CHAIN) {
    seen.add(next);
    const issue = await api.readIssue(repo, next);
    if (chain.length && issue.title !== chain[chain.length - 1]?.title) break;
    chain.push(issue);
    next = trusted ? followablePredecessor(issue, { title: issue.title, trusted }) : continuedFrom(issue.body);
  }
  return chain.reverse();
}
