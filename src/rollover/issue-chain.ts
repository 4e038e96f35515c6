import type { ForgejoApi, ForgejoIssue, RepoRef } from "../forgejo/index.ts";
import { continuedFrom } from "./chain-links.ts";

/** At most this many issues are followed back (a loop of forged markers cannot run forever). */
const MAX_CHAIN = 1000;

/**
 * A session issue and every issue it continues, oldest first, by the
 * `continues` marker each successor's body carries (rollover). Only markers in
 * issues that share the newest one's title are followed.
 */
export async function issueChain(api: ForgejoApi, repo: RepoRef, newest: number): Promise<ForgejoIssue[]> {
  const chain: ForgejoIssue[] = [];
  const seen = new Set<number>();
  let next: number | null = newest;
  while (next !== null && !seen.has(next) && chain.length < MAX_CHAIN) {
    seen.add(next);
    const issue = await api.getIssue(repo, next);
    if (chain.length && issue.title !== chain[chain.length - 1]?.title) break;
    chain.push(issue);
    next = continuedFrom(issue.body);
  }
  return chain.reverse();
}
