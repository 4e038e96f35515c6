/** Comment routes: list (no paging), create, get, edit, delete. */
import { canWrite, loadIssue, loadRepo, paramInt, requireToken, unitMode } from "../access.ts";
import { apiError, notFound, statusOnly } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { issueHtmlUrl, toApiComment } from "../convert.ts";
import { issueCommentPayload, type Changes } from "../payloads.ts";
import { bindBody, CreateIssueCommentOption, EditIssueCommentOption } from "../schemas.ts";
import type { CommentRow, IssueRow, RepoRow, UserRow } from "../types.ts";
import { beforeSince } from "./query-time.ts";

/**
 * GET /repos/{o}/{r}/issues/{index}/comments. Forgejo calls FindComments without ListOptions: every comment
 * is returned (no page/limit, no Link header) but X-Total-Count is set. since/before compare the comment's
 * updated_unix in whole seconds: updated_unix >= since AND updated_unix <= before (builder.Lte in
 * models/issues/comment.go — inclusive, although the description says "before"). Order: created_unix, id.
 */
export const listComments: RouteHandler = (ctx) => {
  const { before, since } = beforeSince(ctx);
  const { repo } = loadRepo(ctx);
  const issue = loadIssue(ctx, repo, true);
  const rows = ctx.forge.store.listComments(issue.id, since, before);
  const cache = new Map<number, Record<string, unknown>>();
  const html = issueHtmlUrl(ctx.forge, repo, issue);
  return {
    status: 200,
    json: rows.map((c) => toApiComment(ctx.forge, c, issue, repo, cache, html)),
    headers: { "X-Total-Count": String(rows.length), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

function queueCommentHook(ctx: RequestContext, repo: RepoRow, issueId: number, comment: CommentRow, doer: UserRow, action: "created" | "edited" | "deleted", changes?: Changes) {
  return (responded: Promise<void>) => {
    const issue = ctx.forge.store.issueById(issueId);
    if (!issue) return;
    ctx.forge.webhooks.dispatch(repo.id, "issue_comment", issueCommentPayload(ctx.forge, action, issue, comment, repo, doer, changes), responded);
  };
}

export const createComment: RouteHandler = (ctx) => {
  const { repo, issuesMode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(CreateIssueCommentOption, ctx.body);
  // Binding errors answer 422 although the swagger operation does not list it.
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue = loadIssue(ctx, repo, true);
  if (issue.is_locked === 1 && !canWrite(issuesMode) && doer.is_admin !== 1) {
    throw apiError(ctx.forge.baseUrl, 403, "You cannot comment on a locked issue.");
  }
  const store = ctx.forge.store;
  const now = ctx.forge.nowUnix();
  const id = store.transaction(() => {
    const newId = store.insertComment(issue.id, doer.id, form.value.body, now, now);
    store.recountComments(issue.id);
    store.touchIssue(issue.id, now);
    return newId;
  });
  const comment = store.commentById(id)!;
  const fresh = store.issueById(issue.id)!;
  return {
    status: 201,
    json: toApiComment(ctx.forge, comment, fresh, repo),
    after: queueCommentHook(ctx, repo, issue.id, comment, doer, "created"),
  };
};

/** commentAssignment(): the comment must exist and belong to this repo. */
export function loadComment(ctx: RequestContext, repo: RepoRow): { comment: CommentRow; issue: IssueRow } {
  const id = paramInt(ctx, "id");
  const comment = ctx.forge.store.commentById(id);
  if (!comment) throw notFound(ctx.forge.baseUrl, undefined, [`comment does not exist [id: ${id}, issue_id: 0]`]);
  const issue = ctx.forge.store.issueById(comment.issue_id);
  if (!issue || issue.repo_id !== repo.id) throw notFound(ctx.forge.baseUrl);
  return { comment, issue };
}

export const getComment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const { comment, issue } = loadComment(ctx, repo);
  return { status: 200, json: toApiComment(ctx.forge, comment, issue, repo) };
};

/** Poster or writer only; otherwise Forgejo answers ctx.Status(403) with an empty body. */
function mustOwnOrWrite(ctx: RequestContext, repo: RepoRow, comment: CommentRow, doer: UserRow): void {
  if (doer.id !== comment.poster_id && !canWrite(unitMode(ctx.forge, repo, doer, "issues"))) throw statusOnly(403);
}

export const editComment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(EditIssueCommentOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const { comment, issue } = loadComment(ctx, repo);
  mustOwnOrWrite(ctx, repo, comment, doer);
  const store = ctx.forge.store;
  const now = ctx.forge.nowUnix();
  const oldBody = comment.body;
  store.transaction(() => {
    store.updateComment(comment.id, form.value.body, now);
    store.touchIssue(issue.id, now);
  });
  const updated = store.commentById(comment.id)!;
  return {
    status: 200,
    json: toApiComment(ctx.forge, updated, store.issueById(issue.id)!, repo),
    after: queueCommentHook(ctx, repo, issue.id, updated, doer, "edited", { body: { from: oldBody } }),
  };
};

export const deleteComment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const { comment, issue } = loadComment(ctx, repo);
  mustOwnOrWrite(ctx, repo, comment, doer);
  const store = ctx.forge.store;
  store.transaction(() => {
    store.deleteComment(comment.id);
    store.recountComments(issue.id);
  });
  return { status: 204, after: queueCommentHook(ctx, repo, issue.id, comment, doer, "deleted") };
};
