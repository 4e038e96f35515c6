/** Comment routes: list (no paging), create, get, edit, delete. */
import { canWrite, loadIssue, loadRepo, paramInt, requireToken, unitMode } from "../access.ts";
import { apiError, notFound, statusOnly } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { issueHtmlUrl, toApiComment } from "../convert.ts";
import { issueCommentPayload, type Changes } from "../payloads.ts";
import { bindBody, CreateIssueCommentOption, EditIssueCommentOption } from "../schemas.ts";
import type { CommentRow, IssueRow, RepoRow, UserRow } from "../types.ts";
import { beforeSince } from "./query-time.ts";
import { updateTime } from "./update-date.ts";
import { addCrossReferences, neuterCommentReferences } from "../xref.ts";

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

/**
 * The `issue_comment` webhook, its payload built now, as Forgejo's notifier builds it inside the handler
 * (services/webhook/notifier.go:363-474): for `deleted`, the issue loaded before the delete, so its
 * `comments` count still includes the deleted comment.
 */
function commentHook(ctx: RequestContext, repo: RepoRow, issue: IssueRow, comment: CommentRow, doer: UserRow, action: "created" | "edited" | "deleted", changes?: Changes) {
  const payload = issueCommentPayload(ctx.forge, action, issue, comment, repo, doer, changes);
  return (responded: Promise<void>) => ctx.forge.webhooks.dispatch(repo.id, "issue_comment", payload, responded);
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
  // SetIssueUpdateDate (issue_comment.go:425-429): with `updated_at`, the comment and the issue carry it.
  const now = updateTime(ctx, repo, issue, doer, form.value.updated_at ?? undefined).at();
  const store = ctx.forge.store;
  // CreateComment → updateCommentInfos: num_comments recounted, the issue's updated_unix set
  // (models/issues/comment.go:906-921).
  const id = store.transaction(() => {
    const newId = store.insertComment(issue.id, doer.id, form.value.body, now, now);
    store.recountComments(issue.id);
    store.touchIssue(issue.id, now);
    addCrossReferences(ctx.forge, issue, newId, doer, "", form.value.body, false, now); // comment.go:879
    return newId;
  });
  const comment = store.commentById(id) as CommentRow;
  const fresh = store.issueById(issue.id) as IssueRow;
  return { status: 201, json: toApiComment(ctx.forge, comment, fresh, repo), after: commentHook(ctx, repo, fresh, comment, doer, "created") };
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

/**
 * PATCH …/issues/comments/{id} (issue_comment.go:602-634): UpdateComment writes the comment row only
 * (models/issues/comment.go:1150-1192): its updated_at and content version move, even with the body
 * unchanged; the issue's updated_at does NOT move. `updated_at` (admins) sets the comment's time.
 */
export const editComment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const form = bindBody(EditIssueCommentOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const { comment, issue } = loadComment(ctx, repo);
  mustOwnOrWrite(ctx, repo, comment, doer);
  const now = updateTime(ctx, repo, issue, doer, form.value.updated_at ?? undefined).at();
  const store = ctx.forge.store;
  if (!store.changeCommentContent(comment.id, form.value.body, comment.content_version, now)) throw apiError(ctx.forge.baseUrl, 500, doer.is_admin === 1 ? "the comment is already changed" : "");
  addCrossReferences(ctx.forge, issue, comment.id, doer, "", form.value.body, true, now); // comment.go:1184
  const updated = store.commentById(comment.id) as CommentRow;
  return {
    status: 200,
    json: toApiComment(ctx.forge, updated, issue, repo),
    after: commentHook(ctx, repo, issue, updated, doer, "edited", { body: { from: comment.body } }),
  };
};

export const deleteComment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const { comment, issue } = loadComment(ctx, repo);
  mustOwnOrWrite(ctx, repo, comment, doer);
  const store = ctx.forge.store;
  const hook = commentHook(ctx, repo, issue, comment, doer, "deleted");
  store.transaction(() => {
    store.deleteComment(comment.id);
    store.recountComments(issue.id);
    neuterCommentReferences(ctx.forge, issue.id, comment.id);
  });
  return { status: 204, after: hook };
};
