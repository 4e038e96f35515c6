import type { HostComment, RepoRef } from "../ports/issue-host.ts";

/**
 * The comment is on this issue. A hint in the issue body (the resume index)
 * names comments by id, and Forgejo's GET of a comment by id answers for any
 * issue of the repository: a writer could point at another issue's comment.
 * `issue_url` is the issue's web URL; `html_url` adds `#issuecomment-N`.
 */
export function commentOnIssue(c: HostComment, repo: RepoRef, issue: number): boolean {
  const tail = `/${repo.owner}/${repo.repo}/issues/${issue}`.toLowerCase();
  if (c.issueUrl) return c.issueUrl.toLowerCase().endsWith(tail);
  return c.htmlUrl.toLowerCase().endsWith(`${tail}#issuecomment-${c.id}`);
}
