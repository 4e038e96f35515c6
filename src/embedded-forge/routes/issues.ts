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

function queueIssueHook(ctx: RequestContext, repo: RepoRow, doer: UserRow, events: Array<{ action: "opened" | "edited" | "closed" | "reopened"; changes?: Changes }>, issueId: number) {
  return (responded: Promise<void>) => {
    const fresh = ctx.forge.store.issueById(issueId);
    if (!fresh) return;
    for (const e of events) {
      ctx.forge.webhooks.dispatch(repo.id, "issues", issuesPayload(ctx.forge, e.action, fresh, repo, doer, e.changes), responded);
    }
  };
}

export const createIssue: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(CreateIssueOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const now = ctx.forge.nowUnix();
  const store = ctx.forge.store;
  const issue = store.transaction(() => {
    const created = store.createIssue(
      { repoId: repo.id, posterId: doer.id, title: form.value.title, body: form.value.body ?? "", isPull: false, isClosed: form.value.closed === true, isLocked: false },
      now,
    );
    // Setting labels is not allowed if the user is not a writer (Forgejo empties the list).
    if (canWrite(issuesMode)) {
      for (const id of form.value.labels ?? []) if (store.labelOfRepo(repo.id, id)) store.addIssueLabel(created.id, id);
    }
    return created;
  });
  const events: Array<{ action: "opened" | "closed" }> = [{ action: "opened" }];
  if (form.value.closed) events.push({ action: "closed" });
  return {
    status: 201,
    json: toApiIssue(ctx.forge, store.issueById(issue.id)!, repo, doer),
    after: queueIssueHook(ctx, repo, doer, events, issue.id),
  };
};

export const editIssue: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(EditIssueOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue: IssueRow = loadIssue(ctx, repo, false);
  // Forgejo: neither poster nor writer → ctx.Status(403), an empty body.
  if (issue.poster_id !== doer.id && !canWrite(unitMode(ctx.forge, repo, doer, "issues"))) throw statusOnly(403);
  const f = form.value;
  const events: Array<{ action: "edited" | "closed" | "reopened"; changes?: Changes }> = [];
  let title = issue.title;
  let body = issue.body;
  let isClosed = issue.is_closed === 1;
  let closedUnix = issue.closed_unix;
  const now = ctx.forge.nowUnix();
  if (f.title && f.title !== issue.title) {
    events.push({ action: "edited", changes: { title: { from: issue.title } } });
    title = f.title;
  }
  if (f.body !== undefined && f.body !== issue.body) {
    events.push({ action: "edited", changes: { body: { from: issue.body } } });
    body = f.body;
  }
  if (f.state !== undefined) {
    const wantClosed = f.state === "closed";
    if (wantClosed !== isClosed) {
      isClosed = wantClosed;
      closedUnix = wantClosed ? now : 0;
      events.push({ action: wantClosed ? "closed" : "reopened" });
    }
  }
  if (events.length > 0) {
    ctx.forge.store.updateIssue(issue.id, { title, body, isClosed, closedUnix, isLocked: issue.is_locked === 1 }, now);
  }
  // Forgejo's API edit changes the content whenever a body is sent, at the version it just read, so it
  // never conflicts; the version still moves on (routers/api/v1/repo/issue.go:864, ChangeContent with
  // issue.ContentVersion; EditIssueOption in modules/structs/issue.go has no content_version field).
  // Only the web edit names a version and can be refused (web-actions.ts).
  if (f.body !== undefined) ctx.forge.store.changeIssueContent(issue.id, body, issue.content_version, events.length ? now : issue.updated_unix);
  // Forgejo answers 201 Created here (not 200), as its swagger says.
  return {
    status: 201,
    json: toApiIssue(ctx.forge, ctx.forge.store.issueById(issue.id)!, repo, doer),
    after: queueIssueHook(ctx, repo, doer, events, issue.id),
  };
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
