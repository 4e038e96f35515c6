import type { HostIssue, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { SessionIssueNotFoundError } from "../errors.ts";

export interface LocateOptions {
  title: string;
  label: string;
  create: boolean;
  warn?: (message: string, extra: Record<string, unknown>) => void;
}

/**
 * Find the open session-state issue: title contains `title` and the label is
 * really on it. Forgejo drops unknown label names from the filter instead of
 * failing, so the label is checked here too. Several matches: the newest wins.
 */
export async function locateIssue(api: IssueHost, repo: RepoRef, opts: LocateOptions): Promise<HostIssue> {
  const matches = await listSessionIssues(api, repo, opts);
  const [newest] = matches;
  if (newest) {
    if (matches.length > 1)
      opts.warn?.(`several open session-state issues match; using the newest, #${newest.number}. Close the others to silence this.`, {
        issues: matches.map((m) => m.number),
      });
    return newest;
  }
  if (!opts.create)
    throw new SessionIssueNotFoundError(
      `No open issue titled "${opts.title}" with label "${opts.label}" in ${repo.owner}/${repo.repo}. ` +
        `Create it with \`checkpost init\`, pass --issue N, or set CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL.`,
    );
  return createIssue(api, repo, opts);
}

/** Does this issue look like a session-state issue (title contains the pattern, label present)? */
export function isSessionIssue(issue: { title: string; labels?: { name: string }[] | null; isPullRequest?: boolean }, opts: { title: string; label: string }): boolean {
  return !issue.isPullRequest && issue.title.includes(opts.title) && (issue.labels ?? []).some((l) => l.name === opts.label);
}

/**
 * Every open session-state issue of a repo, newest first. All pages are read (Link rel="next"): an instance
 * with a lowered MAX_RESPONSE_ITEMS answers shorter pages than asked for, so a short page is not the end.
 */
export async function listSessionIssues(api: IssueHost, repo: RepoRef, opts: { title: string; label: string }): Promise<HostIssue[]> {
  return api.findSessionIssues(repo, { state: "open", title: opts.title, label: opts.label });
}

async function createIssue(api: IssueHost, repo: RepoRef, opts: LocateOptions): Promise<HostIssue> {
  return api.openSessionIssue(repo, {
    title: opts.title,
    body: "Session state for automated agents: checkpoints (`[CHECKPOINT]`) and health signals (`[HEALTH]`) are posted as comments below.",
    labels: [opts.label],
  });
}
