/** Issue routes: list (search), create, get, edit. */
import { canWrite, loadIssue, loadRepo, paramInt, requireRepoAdmin, requireToken, unitMode } from "../access.ts";
import { apiError, notFound, statusOnly } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { toApiIssue } from "../convert.ts";
import { getListOptions, linkHeader } from "../paging.ts";
import { issuesPayload, type Changes } from "../payloads.ts";
import { bindBody, CreateIssueOption, EditIssueOption } from "../schemas.ts";
import type { IssueRow, RepoRow, UserRow } from "../types.ts";
import { beforeSince } from "./query-time.ts";
import { updateTime } from "./update-date.ts";
import { addCrossReferences } from "../xref.ts";

/** getUserIDForFilter: unknown user → 404 with the error in "errors". */
function userFilter(ctx: RequestContext, name: string): UserRow | undefined {
  const login = ctx.url.searchParams.get(name) ?? "";
  if (!login) return undefined;
  const user = ctx.forge.store.userByLogin(login);
  if (!user) throw notFound(ctx.forge.baseUrl, undefined, [`user does not exist [uid: 0, name: ${login}]`]);
  return user;
}

export const listIssues: RouteHandler = (ctx) => {
  const { before, since } = beforeSince(ctx);
  const { repo } = loadRepo(ctx);
  const q = ctx.url.searchParams;
  const state = q.get("state") ?? "";
  const isClosed = state === "closed" ? true : state === "all" ? undefined : false;
  let keyword = (q.get("q") ?? "").trim();
  if (keyword.includes("\0")) keyword = "";
  // Forgejo: strings.Split(labels, ",") → GetLabelIDsInRepoByNames; unknown names are dropped, and when
  // none is known the list is empty so no label condition applies at all. Known labels are AND-ed (one
  // INNER JOIN per label in the db indexer) although the swagger text says "any of".
  const labelIds = ctx.forge.store.labelIdsByNames(repo.id, (q.get("labels") ?? "").split(","));
  const type = q.get("type") ?? "";
  const isPull = type === "pulls" ? true : type === "issues" ? false : undefined;
  const createdBy = userFilter(ctx, "created_by");
  const assignedBy = userFilter(ctx, "assigned_by");
  const mentionedBy = userFilter(ctx, "mentioned_by");
  const list = getListOptions(q, ctx.forge.maxResponseItems);
  const { rows, total } = ctx.forge.store.searchIssues({
    repoId: repo.id,
    isClosed,
    isPull,
    labelIds,
    keyword: keyword || undefined,
    posterId: createdBy?.id,
    mentionLogin: mentionedBy?.login,
    noneMatch: assignedBy !== undefined, // this server has no assignees
    sinceUnix: since !== 0 ? since : undefined,
    beforeUnix: before !== 0 ? before : undefined,
    sort: q.get("sort") ?? "latest",
    offset: list.offset,
    limit: list.pageSize,
  });
  const headers: Record<string, string> = { "X-Total-Count": String(total) };
  const link = linkHeader(ctx.forge.baseUrl, ctx.url.pathname, q, total, list.pageSize, list.rawPage);
  if (link) headers.Link = link;
  headers["Access-Control-Expose-Headers"] = link ? "X-Total-Count, Link" : "X-Total-Count";
  return { status: 200, json: rows.map((i) => toApiIssue(ctx.forge, i, repo, ctx.doer)), headers };
};

export const getIssue: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = loadIssue(ctx, repo, false);
  return { status: 200, json: toApiIssue(ctx.forge, issue, repo, ctx.doer) };
};

/**
 * The `issues` webhooks of one request. Forgejo builds each payload when its notifier runs, in the middle of
 * the handler, and serializes it there (PrepareWebhooks → services/webhook/webhook.go:194): each event shows
 * the issue as it was at that step, not as the request leaves it. `snap` takes that picture.
 */
function issueHooks(ctx: RequestContext, repo: RepoRow, doer: UserRow, issueId: number) {
  const payloads: Record<string, unknown>[] = [];
  return {
    snap(action: "opened" | "edited" | "closed" | "reopened" | "label_updated", changes?: Changes): void {
      const now = ctx.forge.store.issueById(issueId);
      if (now) payloads.push(issuesPayload(ctx.forge, action, now, repo, doer, changes));
    },
    after(responded: Promise<void>): void {
      for (const p of payloads) ctx.forge.webhooks.dispatch(repo.id, p.action === "label_updated" ? "issue_label" : "issues", p, responded);
    },
  };
}

/**
 * POST /repos/{o}/{r}/issues (routers/api/v1/repo/issue.go:665-765). issue_service.NewIssue stores the issue
 * open, with its labels (only a writer's, :730-733), then notifies `opened` and, when labels were set,
 * `label_updated` (services/issue/issue.go:50-53). `closed: true` then runs ChangeStatus (:747-756): a
 * `closed` event follows, so the `opened` payload still shows the issue open.
 */
export const createIssue: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(CreateIssueOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const now = ctx.forge.nowUnix();
  const store = ctx.forge.store;
  let labelled = false;
  const issue = store.transaction(() => {
    const created = store.createIssue({ repoId: repo.id, posterId: doer.id, title: form.value.title, body: form.value.body ?? "", isPull: false, isClosed: false, isLocked: false }, now);
    // Setting labels is not allowed if the user is not a writer (Forgejo empties the list).
    if (canWrite(issuesMode)) {
      for (const id of form.value.labels ?? [])
        if (store.labelOfRepo(repo.id, id)) {
          store.addIssueLabel(created.id, id);
          labelled = true;
        }
    }
    // newIssue → AddCrossReferences(removeOld false) (models/issues/issue_update.go:421).
    addCrossReferences(ctx.forge, created, 0, doer, created.title, created.body, false, now);
    return created;
  });
  const hooks = issueHooks(ctx, repo, doer, issue.id);
  hooks.snap("opened");
  if (labelled) hooks.snap("label_updated");
  if (form.value.closed === true) {
    const open = store.issueById(issue.id) as IssueRow;
    store.updateIssue(issue.id, { title: open.title, body: open.body, isClosed: true, closedUnix: now, isLocked: open.is_locked === 1 }, now);
    hooks.snap("closed");
  }
  return { status: 201, json: toApiIssue(ctx.forge, store.issueById(issue.id) as IssueRow, repo, doer), after: (r) => hooks.after(r) };
};

/**
 * PATCH /repos/{o}/{r}/issues/{index} (routers/api/v1/repo/issue.go:768-952), step by step as Forgejo:
 * - SetIssueUpdateDate with `updated_at` (:831-835; update-date.ts);
 * - a non-empty title that differs: ChangeTitle, one `edited` with changes.title (services/issue/issue.go:62-100);
 * - a body, changed or NOT: ChangeContent at the version just read (:844-855). ChangeIssueContent does not
 *   compare old and new, so an unchanged body still moves updated_at, raises the version and sends `edited`
 *   with changes.body (models/issues/issue_update.go:262-311, services/issue/content.go:15-25);
 * - a state that differs: ChangeStatus, `closed` or `reopened` (:917-939).
 * Each event's payload is the issue at its step: the title event carries the old body, the body event the
 * old state. Forgejo answers 201 Created here (not 200), as its swagger says.
 */
export const editIssue: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(EditIssueOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue: IssueRow = loadIssue(ctx, repo, false);
  // Forgejo: neither poster nor writer → ctx.Status(403), an empty body.
  if (issue.poster_id !== doer.id && !canWrite(unitMode(ctx.forge, repo, doer, "issues"))) throw statusOnly(403);
  const f = form.value;
  const when = updateTime(ctx, repo, issue, doer, f.updated_at ?? undefined);
  const store = ctx.forge.store;
  const hooks = issueHooks(ctx, repo, doer, issue.id);
  const current = () => store.issueById(issue.id) as IssueRow;
  const save = (i: IssueRow, c: Partial<{ title: string; isClosed: boolean; closedUnix: number }>) =>
    store.updateIssue(i.id, { title: c.title ?? i.title, body: i.body, isClosed: c.isClosed ?? i.is_closed === 1, closedUnix: c.closedUnix ?? i.closed_unix, isLocked: i.is_locked === 1 }, when.at());
  if (f.title && f.title !== issue.title) {
    save(current(), { title: f.title });
    const titled = current();
    addCrossReferences(ctx.forge, titled, 0, doer, titled.title, titled.body, true, when.at()); // issue_update.go:184
    hooks.snap("edited", { title: { from: issue.title } });
  }
  if (f.body !== undefined) {
    const before = current();
    if (!store.changeIssueContent(issue.id, f.body, before.content_version, when.at())) throw apiError(ctx.forge.baseUrl, 400, "the issue is already changed");
    addCrossReferences(ctx.forge, before, 0, doer, before.title, f.body, true, when.at()); // issue_update.go:306
    hooks.snap("edited", { body: { from: before.body } });
  }
  if (f.state !== undefined) {
    const wantClosed = f.state === "closed";
    const before = current();
    if (wantClosed !== (before.is_closed === 1)) {
      // doChangeIssueStatus: ClosedUnix is the NoAutoTime date when one was given, else now (issue_update.go:86-93).
      save(before, { isClosed: wantClosed, closedUnix: wantClosed ? when.at() : 0 });
      hooks.snap(wantClosed ? "closed" : "reopened");
    }
  }
  return { status: 201, json: toApiIssue(ctx.forge, current(), repo, doer), after: (r) => hooks.after(r) };
};

/**
 * DELETE /repos/{o}/{r}/issues/{index} (reqToken + reqAdmin, routers/api/v1/api.go:1457; handler
 * routers/api/v1/repo/issue.go:954-998): 404 ctx.NotFound(err) for an unknown issue, else the issue, its
 * comments, labels and attachments are removed; 204. Forgejo sends no webhook for a deleted issue.
 */
export const deleteIssue: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  requireRepoAdmin(ctx, mode);
  const index = paramInt(ctx, "index");
  const issue = ctx.forge.store.issueByIndex(repo.id, index);
  if (!issue) throw notFound(ctx.forge.baseUrl, undefined, [`issue does not exist [id: 0, repo_id: ${repo.id}, index: ${index}]`]);
  ctx.forge.store.deleteIssue(issue.id);
  return { status: 204 };
};
