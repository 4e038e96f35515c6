/** Webhook payloads (modules/structs/hook.go: IssueCommentPayload, IssuePayload), keys in Go struct order. */
import { accessMode } from "./access.ts";
import type { ForgeContext } from "./context.ts";
import { toApiComment, toApiIssue, toApiRepo, toApiUser } from "./convert.ts";
import type { CommentRow, IssueRow, RepoRow, UserRow } from "./types.ts";

export interface Changes {
  title?: { from: string };
  body?: { from: string };
}

export function issueCommentPayload(
  f: ForgeContext,
  action: "created" | "edited" | "deleted",
  issue: IssueRow,
  comment: CommentRow,
  repo: RepoRow,
  doer: UserRow,
  changes?: Changes,
): Record<string, unknown> {
  const p: Record<string, unknown> = {
    action,
    issue: toApiIssue(f, issue, repo, doer),
    comment: toApiComment(f, comment, issue, repo),
  };
  if (changes) p.changes = changes;
  p.repository = toApiRepo(f, repo, accessMode(f, repo, doer));
  p.sender = toApiUser(f, doer, null);
  p.is_pull = issue.is_pull === 1;
  return p;
}

export function issuesPayload(
  f: ForgeContext,
  action: "opened" | "edited" | "closed" | "reopened" | "label_updated" | "label_cleared",
  issue: IssueRow,
  repo: RepoRow,
  doer: UserRow,
  changes?: Changes,
): Record<string, unknown> {
  const p: Record<string, unknown> = { action, number: issue.idx };
  if (changes) p.changes = changes;
  p.issue = toApiIssue(f, issue, repo, doer);
  // Every `issues` event computes repository.permissions for the issue's poster, not the doer
  // (services/webhook/notifier.go:52, :190, :230, :281, :325, :529); comment events use the doer (:387, :422, :462).
  p.repository = toApiRepo(f, repo, accessMode(f, repo, f.store.userById(issue.poster_id) ?? doer));
  p.sender = toApiUser(f, doer, null);
  p.commit_id = "";
  return p;
}
