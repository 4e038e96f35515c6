/** Hook event flags as Forgejo keeps them (no I/O; used by the hook routes, the store migration and delivery). */

/** The event names Webhook.EventsArray() can list, in its order (models/webhook/webhook.go:327-362). */
const EVENT_ORDER = [
  "create",
  "delete",
  "fork",
  "push",
  "issues",
  "issue_assign",
  "issue_label",
  "issue_milestone",
  "issue_comment",
  "pull_request",
  "pull_request_assign",
  "pull_request_label",
  "pull_request_milestone",
  "pull_request_comment",
  "pull_request_review_approved",
  "pull_request_review_rejected",
  "pull_request_review_comment",
  "pull_request_sync",
  "wiki",
  "repository",
  "release",
  "package",
  "pull_request_review_request",
  "action_run_failure",
  "action_run_recover",
  "action_run_success",
] as const;

/**
 * The hook's event flags from the events a client asked for, listed as Webhook.EventsArray() lists them:
 * addHook / editHook (routers/api/v1/utils/hook.go:190-217, :372-403). "issues" turns on every issue
 * sub-event (issuesHook, :155-157): issues, issue_assign, issue_label, issue_milestone and issue_comment;
 * "issues_only" turns on "issues" alone; "pull_request" likewise covers its sub-events (pullHook, :159-161),
 * and "pull_request_review" covers approved and rejected. Names are matched
 * case-insensitively (util.SliceContainsString(…, true)); unknown names are dropped.
 */
export function expandHookEvents(asked: readonly string[]): string[] {
  const want = new Set(asked.map((e) => e.toLowerCase()));
  const issues = want.has("issues");
  const pulls = want.has("pull_request");
  const on = new Set<string>();
  for (const e of ["create", "delete", "fork", "push", "wiki", "repository", "release", "package", "action_run_failure", "action_run_recover", "action_run_success"]) if (want.has(e)) on.add(e);
  if (issues || want.has("issues_only")) on.add("issues");
  for (const e of ["issue_assign", "issue_label", "issue_milestone", "issue_comment"]) if (issues || want.has(e)) on.add(e);
  if (pulls || want.has("pull_request_only")) on.add("pull_request");
  for (const e of ["pull_request_assign", "pull_request_label", "pull_request_milestone", "pull_request_comment", "pull_request_sync", "pull_request_review_request"])
    if (pulls || want.has(e)) on.add(e);
  if (pulls || want.has("pull_request_review")) for (const e of ["pull_request_review_approved", "pull_request_review_rejected"]) on.add(e);
  // pull_request_review_comment is listed from the PullRequestComment flag (webhook.go:348, :351).
  if (on.has("pull_request_comment")) on.add("pull_request_review_comment");
  return EVENT_ORDER.filter((e) => on.has(e));
}
