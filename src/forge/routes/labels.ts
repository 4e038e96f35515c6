/** Label routes: repo labels (list/create), issue labels (list/add). */
import { canWrite, loadIssue, loadRepo, requireToken } from "../access.ts";
import { apiError, statusOnly } from "../api-error.ts";
import type { RouteHandler } from "../context.ts";
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
  const list = getListOptions(ctx.url.searchParams);
  const rows = ctx.forge.store.labelsOfRepo(repo.id, list.offset, list.pageSize);
  return {
    status: 200,
    json: rows.map((l) => toApiLabel(ctx.forge, l, repo)),
    headers: { "X-Total-Count": String(ctx.forge.store.countLabels(repo.id)), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

export const createRepoLabel: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  if (!canWrite(mode)) throw apiError(ctx.forge.baseUrl, 403, "user should have a permission to write to a repo");
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
 * POST /repos/{o}/{r}/issues/{index}/labels with {labels: [ids or names]}. Unknown ids/names are ignored.
 * Non-writers get ctx.Status(403) (empty body). Answers 200 with all labels of the issue and sends the
 * "issues" webhook with X-*-Event-Type "issue_label" and action "label_updated".
 */
export const addIssueLabels: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(IssueLabelsOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue = loadIssue(ctx, repo, false);
  if (!canWrite(mode)) throw statusOnly(403);
  const store = ctx.forge.store;
  const ids: number[] = [];
  for (const item of form.value.labels ?? []) {
    if (typeof item === "number") {
      if (store.labelOfRepo(repo.id, item)) ids.push(item);
    } else {
      ids.push(...store.labelIdsByNames(repo.id, [item]));
    }
  }
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
    after: changed
      ? (responded) => {
          const fresh = store.issueById(issue.id)!;
          ctx.forge.webhooks.dispatch(repo.id, "issue_label", issuesPayload(ctx.forge, "label_updated", fresh, repo, doer), responded);
        }
      : undefined,
  };
};
