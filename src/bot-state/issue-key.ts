import type { IssueKey } from "./projection-store.ts";

/** The store's key of a session issue: "owner/repo#n", lower-cased. */
export function issueKey(repo: { owner: string; repo: string }, issue: number): IssueKey {
  return `${repo.owner}/${repo.repo}#${issue}`.toLowerCase();
}
