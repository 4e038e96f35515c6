/** Label routes: repo labels (list/create), issue labels (list/add). */
import { canWrite, loadIssue, loadRepo, requireToken } from "../access.ts";
import { apiError, statusOnly } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import type { IssueRow, RepoRow, UserRow } from "../types.ts";
import { toApiLabel } from "../convert.ts";
import { getListOptions } from "../paging.ts";
import { issuesPayload } from "../payloads.ts";
import { bindBody, CreateLabelOption, IssueLabelsOption } from "../schemas.ts";

/** label_model.NormalizeColor: "#rgb" / "#rrggbb" (with or without "#") → "#rrggbb"; else null. */
export function normalizeColor(input: string): string | null {
  const c = input.trim().replace(/^#/, "").toLowerCase();
  if (/^[0-9a-f]{6}$/.test(c)) return `#${c}`;
  if (/^[0-9a-f]{3}$/.test(c)) return `#${c[0]}${c[0]}${c[1]}${c[1]}${c[2]}${c[2]}`;
  return null;
}

/** ListLabels pages (default 30, max 50) and sets X-Total-Count, but no Link header. */
export const listRepoLabels: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const list = getListOptions(ctx.url.searchParams, ctx.forge.maxResponseItems);
  const rows = ctx.forge.store.labelsOfRepo(repo.id, list.offset, list.pageSize);
  return {
    status: 200,
    json: rows.map((l) => toApiLabel(ctx.forge, l, repo)),
    headers: { "X-Total-Count": String(ctx.forge.store.countLabels(repo.id)), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

export const createRepoLabel: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  requireToken(ctx);
  if (!canWrite(issuesMode)) throw apiError(ctx.forge.baseUrl, 403, "user should have a permission to write to a repo");
  const form = bindBody(CreateLabelOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const color = normalizeColor(form.value.color);
  if (!color) throw apiError(ctx.forge.baseUrl, 422, `invalid color: ${form.value.color}`);
  const label = ctx.forge.store.createLabel(repo.id, {
    name: form.value.name,
    color: color.slice(1),
    description: form.value.description ?? "",
    exclusive: form.value.exclusive ?? false,
    isArchived: form.value.is_archived ?? false,
  });
  return { status: 201, json: toApiLabel(ctx.forge, label, repo) };
};

export const listIssueLabels: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = loadIssue(ctx, repo, false);
  return { status: 200, json: ctx.forge.store.labelsOfIssue(issue.id).map((l) => toApiLabel(ctx.forge, l, repo)) };
};

/**
 * prepareForReplaceOrAdd (routers/api/v1/repo/issue_label.go:347-413): the issue (404 ctx.NotFound), then
 * `labels` sorted into ids (JSON numbers) and names (strings): anything else is a 400 "a label must be an
 * integer or a string", ids and names mixed a 400 too. Names unknown in the repo are dropped, ids of
 * other repos ignored. A non-writer gets ctx.Status(403), an empty body.
 */
function prepareLabels(ctx: RequestContext): { repo: RepoRow; issue: IssueRow; doer: UserRow; ids: number[] } {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(IssueLabelsOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue = loadIssue(ctx, repo, false);
  const numbers: number[] = [];
  const names: string[] = [];
  for (const item of form.value.labels ?? []) {
    if (typeof item === "number") numbers.push(Math.trunc(item));
    else if (typeof item === "string") names.push(item);
    else throw apiError(ctx.forge.baseUrl, 400, "a label must be an integer or a string");
  }
  if (numbers.length > 0 && names.length > 0) throw apiError(ctx.forge.baseUrl, 400, "labels should be an array of strings or integers");
  const store = ctx.forge.store;
  const ids = [...numbers.filter((id) => store.labelOfRepo(repo.id, id) !== undefined), ...(names.length > 0 ? store.labelIdsByNames(repo.id, names) : [])];
  if (!canWrite(issuesMode)) throw statusOnly(403);
  return { repo, issue, doer, ids: [...new Set(ids)] };
}

function queueLabelHook(ctx: RequestContext, repo: RepoRow, issueId: number, doer: UserRow, action: "label_updated" | "label_cleared") {
  return (responded: Promise<void>) => {
    const fresh = ctx.forge.store.issueById(issueId);
    if (fresh) ctx.forge.webhooks.dispatch(repo.id, "issue_label", issuesPayload(ctx.forge, action, fresh, repo, doer), responded);
  };
}

/**
 * POST /repos/{o}/{r}/issues/{index}/labels with {labels: [ids or names]}. Answers 200 with all labels of
 * the issue and sends the "issues" webhook with X-*-Event-Type "issue_label" and action "label_updated".
 */
export const addIssueLabels: RouteHandler = (ctx) => {
  const { repo, issue, doer, ids } = prepareLabels(ctx);
  const store = ctx.forge.store;
  const now = ctx.forge.nowUnix();
  const changed = store.transaction(() => {
    let added = false;
    for (const id of ids) added = store.addIssueLabel(issue.id, id) || added;
    if (added) store.touchIssue(issue.id, now);
    return added;
  });
  return {
    status: 200,
    json: store.labelsOfIssue(issue.id).map((l) => toApiLabel(ctx.forge, l, repo)),
    after: changed ? queueLabelHook(ctx, repo, issue.id, doer, "label_updated") : undefined,
  };
};

/** PUT /repos/{o}/{r}/issues/{index}/labels (issue_label.go:226-280): the issue's labels become exactly these; 200 with them. */
export const replaceIssueLabels: RouteHandler = (ctx) => {
  const { repo, issue, doer, ids } = prepareLabels(ctx);
  const store = ctx.forge.store;
  const now = ctx.forge.nowUnix();
  const changed = store.transaction(() => {
    const before = store.labelsOfIssue(issue.id).map((l) => l.id);
    const same = before.length === ids.length && ids.every((id) => before.includes(id));
    if (same) return false;
    store.clearIssueLabels(issue.id);
    for (const id of ids) store.addIssueLabel(issue.id, id);
    store.touchIssue(issue.id, now);
    return true;
  });
  return {
    status: 200,
    json: store.labelsOfIssue(issue.id).map((l) => toApiLabel(ctx.forge, l, repo)),
    after: changed ? queueLabelHook(ctx, repo, issue.id, doer, "label_updated") : undefined,
  };
};

/**
 * DELETE /repos/{o}/{r}/issues/{index}/labels (issue_label.go:283-345): 404 ctx.NotFound() for an unknown
 * issue, ctx.Status(403) for a non-writer, else every label is removed: 204 and an "issue_label" hook with
 * action "label_cleared" (services/webhook/notifier.go:41-70).
 */
export const clearIssueLabels: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const issue = loadIssue(ctx, repo, false);
  if (!canWrite(issuesMode)) throw statusOnly(403);
  const store = ctx.forge.store;
  const now = ctx.forge.nowUnix();
  store.transaction(() => {
    if (store.labelsOfIssue(issue.id).length > 0) store.touchIssue(issue.id, now);
    store.clearIssueLabels(issue.id);
  });
  return { status: 204, after: queueLabelHook(ctx, repo, issue.id, doer, "label_cleared") };
};
