/** Label routes: repo labels (list/create), issue labels (list/add). */
import { canWrite, loadIssue, loadRepo, requireToken } from "../access.ts";
import { apiError, statusOnly } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import type { IssueRow, LabelRow, RepoRow, UserRow } from "../types.ts";
import { updateTime } from "./update-date.ts";
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
function prepareLabels(ctx: RequestContext): { repo: RepoRow; issue: IssueRow; doer: UserRow; ids: number[]; at: number } {
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
  // SetIssueUpdateDate after the write check (prepareForReplaceOrAdd, issue_label.go:406-410).
  const at = updateTime(ctx, repo, issue, doer, form.value.updated_at ?? undefined).at();
  return { repo, issue, doer, ids: [...new Set(ids)], at };
}

/**
 * The `issue_label` webhook (X-*-Event: issues), its payload taken now (services/webhook/notifier.go:41-79,
 * :514-558). Forgejo sends it after every add or replace, whether or not a label changed
 * (services/issue/label.go:37-44, :71-83), and after every clear (:15-24).
 */
function labelHook(ctx: RequestContext, repo: RepoRow, issueId: number, doer: UserRow, action: "label_updated" | "label_cleared") {
  const issue = ctx.forge.store.issueById(issueId) as IssueRow;
  const payload = issuesPayload(ctx.forge, action, issue, repo, doer);
  return (responded: Promise<void>) => ctx.forge.webhooks.dispatch(repo.id, "issue_label", payload, responded);
}

/** Label.ExclusiveScope (models/issues/label.go:191-200): the part before the last "/" of an exclusive label. */
function exclusiveScope(l: LabelRow): string {
  if (l.exclusive !== 1) return "";
  const i = l.name.lastIndexOf("/");
  return i <= 0 || i === l.name.length - 1 ? "" : l.name.slice(0, i);
}

/**
 * newIssueLabels (models/issues/issue_label.go:122-148): each label not yet on the issue first removes the
 * issue's other labels of its exclusive scope (RemoveDuplicateExclusiveIssueLabels, :63-83), then is added.
 * Every label added or removed writes a timeline comment, which sets the issue's updated_unix
 * (CreateComment → updateCommentInfos, models/issues/comment.go:920-921). Answers whether anything changed.
 */
function addLabels(ctx: RequestContext, issue: IssueRow, ids: number[], at: number): boolean {
  const store = ctx.forge.store;
  let changed = false;
  for (const id of ids) {
    const label = store.labelOfRepo(issue.repo_id, id);
    if (!label || store.labelsOfIssue(issue.id).some((l) => l.id === id)) continue;
    const scope = exclusiveScope(label);
    if (scope !== "") for (const other of store.labelsOfIssue(issue.id)) if (exclusiveScope(other) === scope) store.removeIssueLabel(issue.id, other.id);
    store.addIssueLabel(issue.id, id);
    changed = true;
  }
  if (changed) store.touchIssue(issue.id, at);
  return changed;
}

/**
 * POST /repos/{o}/{r}/issues/{index}/labels with {labels: [ids or names]} (issue_label.go:96-150). Answers 200
 * with all labels of the issue; `label_updated` is sent even when nothing changed; updated_at moves only
 * when a label was added or removed.
 */
export const addIssueLabels: RouteHandler = (ctx) => {
  const { repo, issue, doer, ids, at } = prepareLabels(ctx);
  const store = ctx.forge.store;
  store.transaction(() => addLabels(ctx, issue, ids, at));
  return { status: 200, json: store.labelsOfIssue(issue.id).map((l) => toApiLabel(ctx.forge, l, repo)), after: labelHook(ctx, repo, issue.id, doer, "label_updated") };
};

/**
 * PUT /repos/{o}/{r}/issues/{index}/labels (issue_label.go:226-280; ReplaceIssueLabels, models/issues/
 * issue_label.go:442-510): of several exclusive labels of one scope the last wins
 * (RemoveDuplicateExclusiveLabels, :417-438); missing ones are added, the others removed. 200 with the
 * labels; `label_updated` always.
 */
export const replaceIssueLabels: RouteHandler = (ctx) => {
  const { repo, issue, doer, ids, at } = prepareLabels(ctx);
  const store = ctx.forge.store;
  const wanted = ids.map((id) => store.labelOfRepo(repo.id, id)).filter((l): l is LabelRow => l !== undefined);
  const kept = wanted.filter((l, i) => {
    const scope = exclusiveScope(l);
    return scope === "" || !wanted.slice(i + 1).some((o) => exclusiveScope(o) === scope);
  });
  store.transaction(() => {
    const keep = new Set(kept.map((l) => l.id));
    const toRemove = store.labelsOfIssue(issue.id).filter((l) => !keep.has(l.id));
    const added = addLabels(
      ctx,
      issue,
      [...keep].sort((a, b) => a - b),
      at,
    );
    for (const l of toRemove) store.removeIssueLabel(issue.id, l.id);
    if (!added && toRemove.length > 0) store.touchIssue(issue.id, at);
  });
  return { status: 200, json: store.labelsOfIssue(issue.id).map((l) => toApiLabel(ctx.forge, l, repo)), after: labelHook(ctx, repo, issue.id, doer, "label_updated") };
};

/**
 * DELETE /repos/{o}/{r}/issues/{index}/labels (issue_label.go:283-345): 404 ctx.NotFound() for an unknown
 * issue, ctx.Status(403) for a non-writer, SetIssueUpdateDate (:334-337), else every label is removed (updated_at moves only if there was
 * one): 204 and `label_cleared`, always (services/issue/label.go:15-24).
 */
export const clearIssueLabels: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(IssueLabelsOption, ctx.body ?? {});
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue = loadIssue(ctx, repo, false);
  if (!canWrite(issuesMode)) throw statusOnly(403);
  const at = updateTime(ctx, repo, issue, doer, form.value.updated_at ?? undefined).at();
  const store = ctx.forge.store;
  store.transaction(() => {
    if (store.labelsOfIssue(issue.id).length > 0) store.touchIssue(issue.id, at);
    store.clearIssueLabels(issue.id);
  });
  return { status: 204, after: labelHook(ctx, repo, issue.id, doer, "label_cleared") };
};
