/**
 * Issue attachments ("assets"), as routers/api/v1/repo/issue_attachment.go: list, upload
 * (multipart/form-data, field "attachment", optional ?name=), get, rename (PATCH), delete; the file is
 * served at browser_download_url (/attachments/{uuid}).
 * - A missing issue or attachment id answers ctx.NotFoundOrServerError: 404 with the body `null`
 *   (:348-358, :373-378; services/context/api.go:449-455). An attachment of another issue answers
 *   ctx.NotFound("no such attachment in issue"), of another repository "no such attachment in repo"
 *   (:395-411). The swagger declares the plain "error" response for these routes: the source wins.
 * - Writing (upload, rename, delete) needs a signed-in poster, repo admin, site admin or issue writer, else
 *   403 "user should have permission to write issue" (:385-393).
 * Every upload is checked against [attachment] ALLOWED_TYPES (upload-verify.ts); MAX_SIZE and MAX_FILES are
 * not checked by Forgejo's API, nor here.
 *
 * Comment attachments, as routers/api/v1/repo/issue_comment_attachment.go: list, upload, get, rename,
 * delete under /issues/comments/{id}/assets. commentAssignment (routers/api/v1/api.go:238-268) answers
 * ctx.NotFound for an unknown comment or one of another repository.
 */
import { randomUUID } from "node:crypto";
import { canWrite, isRepoAdmin, loadRepo, paramInt, requireToken, unitMode } from "../access.ts";
import { apiError, notFound, notFoundNull } from "../api-error.ts";
import { toApiAttachment } from "../convert.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { issueCommentPayload, issuesPayload } from "../payloads.ts";
import { bindBody, EditAttachmentOptions } from "../schemas.ts";
import type { ApiResult, AttachmentRow, CommentRow, IssueRow, RepoRow, UserRow } from "../types.ts";
import { FILE_TYPE_FORBIDDEN, uploadAllowed } from "../upload-verify.ts";
import { loadComment } from "./comments.ts";

/** getIssueFromContext: GetIssueByIndex, a missing issue being NotFoundOrServerError's 404 `null`. */
function issueOf(ctx: RequestContext, repo: RepoRow): IssueRow {
  const issue = ctx.forge.store.issueByIndex(repo.id, paramInt(ctx, "index"));
  if (!issue) throw notFoundNull();
  return issue;
}

/** getIssueAttachmentSafeRead + attachmentBelongsToRepoOrIssue. */
function attachmentOf(ctx: RequestContext, repo: RepoRow, issue: IssueRow): AttachmentRow {
  const a = ctx.forge.store.attachmentById(paramInt(ctx, "attachment_id"));
  if (!a) throw notFoundNull();
  const owner = ctx.forge.store.issueById(a.issue_id);
  if (!owner || owner.repo_id !== repo.id) throw notFound(ctx.forge.baseUrl, "no such attachment in repo");
  if (a.issue_id !== issue.id) throw notFound(ctx.forge.baseUrl, "no such attachment in issue");
  return a;
}

/** canUserWriteIssueAttachment (:385-393). */
function mustWrite(ctx: RequestContext, issue: IssueRow): void {
  const { issuesMode } = loadRepo(ctx);
  if (!ctx.doer || (ctx.doer.id !== issue.poster_id && !canWrite(issuesMode))) throw apiError(ctx.forge.baseUrl, 403, "user should have permission to write issue");
}

export const listIssueAttachments: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = issueOf(ctx, repo);
  return { status: 200, json: ctx.forge.store.attachmentsOfIssue(issue.id).map((a) => toApiAttachment(ctx.forge, a)) };
};

export const getIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = issueOf(ctx, repo);
  return { status: 200, json: toApiAttachment(ctx.forge, attachmentOf(ctx, repo, issue)) };
};

/** ctx.Req.FormFile("attachment"): its failure answers 500, whose message Forgejo blanks for non-admins in production (services/context/api.go:187-193). */
function formFile(ctx: RequestContext, doer: UserRow): { filename: string; data: Buffer } {
  const file = ctx.files?.find((f) => f.field === "attachment");
  if (file) return file;
  const why = ctx.files === undefined ? "request Content-Type isn't multipart/form-data" : "http: no such file";
  throw apiError(ctx.forge.baseUrl, 500, doer.is_admin === 1 ? why : "");
}

/**
 * attachment.UploadAttachment (services/attachment/attachment.go:70-80): upload.Verify on the first 1024
 * bytes and the stored name, 422 when the type is forbidden (issue_attachment.go:214-221); then the row is
 * inserted. Its created_at is the upload time: the handler passes CreatedUnix: issue.UpdatedUnix
 * (issue_attachment.go:212), but the column carries xorm's `created` tag (models/repo/attachment.go:34), so
 * the insert overwrites it with now unless the issue is NoAutoTime (attachment.go:36-40). Forgejo's own
 * TestAPICreateIssueAttachmentAutoDate asserts this.
 */
function storeUpload(ctx: RequestContext, doer: UserRow, issue: IssueRow, commentId: number): AttachmentRow {
  const file = formFile(ctx, doer);
  const name = ctx.url.searchParams.get("name") || file.filename;
  if (!uploadAllowed(file.data.subarray(0, 1024), name, ctx.forge.attachmentAllowedTypes)) throw apiError(ctx.forge.baseUrl, 422, FILE_TYPE_FORBIDDEN);
  const store = ctx.forge.store;
  const id = store.insertAttachment({ uuid: randomUUID(), issueId: issue.id, commentId, uploaderId: doer.id, name, data: file.data, createdUnix: ctx.forge.nowUnix() });
  return store.attachmentById(id) as AttachmentRow;
}

/**
 * POST …/issues/{index}/assets (:116-231). The issue is read first (getIssueFromContext, :170); after the
 * file is stored, issue_service.ChangeContent runs with the unchanged body at the version read then (:225):
 * the content version goes up by one, updated_at becomes now (models/issues/issue_update.go:289) and an
 * `issues` `edited` webhook is sent with changes.body.from = the body and the uploader as sender
 * (services/webhook/notifier.go:319-361). If the body was edited in between, ChangeIssueContent fails with
 * ErrIssueAlreadyChanged (issue_update.go:293-295): the answer is 500 and the attachment stays stored.
 */
export const createIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const issue = issueOf(ctx, repo);
  mustWrite(ctx, issue);
  const attachment = storeUpload(ctx, doer, issue, 0);
  ctx.forge.seams.afterAttachmentStored?.(attachment.id);
  if (!ctx.forge.store.changeIssueContent(issue.id, issue.body, issue.content_version, ctx.forge.nowUnix())) {
    throw apiError(ctx.forge.baseUrl, 500, doer.is_admin === 1 ? "the issue is already changed" : "");
  }
  const edited = issueEditedHook(ctx, repo, doer, issue.id, issue.body);
  return { status: 201, json: toApiAttachment(ctx.forge, attachment), after: edited };
};

/** PATCH …/assets/{attachment_id} (:234-295): renames when `name` is non-empty; answers 201, as Forgejo does. */
export const editIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const form = bindBody(EditAttachmentOptions, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const issue = issueOf(ctx, repo);
  mustWrite(ctx, issue);
  const a = attachmentOf(ctx, repo, issue);
  if (form.value.name) ctx.forge.store.renameAttachment(a.id, form.value.name);
  return { status: 201, json: toApiAttachment(ctx.forge, ctx.forge.store.attachmentById(a.id) as AttachmentRow) };
};

/** DELETE …/assets/{attachment_id} (:298-346): 204. */
export const deleteIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const issue = issueOf(ctx, repo);
  mustWrite(ctx, issue);
  ctx.forge.store.deleteAttachment(attachmentOf(ctx, repo, issue).id);
  return { status: 204 };
};

/** IssueChangeContent's webhook (services/webhook/notifier.go:319-361), its payload taken when it is sent. */
function issueEditedHook(ctx: RequestContext, repo: RepoRow, doer: UserRow, issueId: number, oldBody: string): ApiResult["after"] {
  const issue = ctx.forge.store.issueById(issueId) as IssueRow;
  const payload = issuesPayload(ctx.forge, "edited", issue, repo, doer, { body: { from: oldBody } });
  return (responded) => ctx.forge.webhooks.dispatch(repo.id, "issues", payload, responded);
}

/** UpdateComment's webhook (services/webhook/notifier.go:363-404). */
function commentEditedHook(ctx: RequestContext, repo: RepoRow, doer: UserRow, comment: CommentRow, oldBody: string): ApiResult["after"] {
  const fresh = ctx.forge.store.commentById(comment.id) as CommentRow;
  const issue = ctx.forge.store.issueById(comment.issue_id) as IssueRow;
  const payload = issueCommentPayload(ctx.forge, "edited", issue, fresh, repo, doer, { body: { from: oldBody } });
  return (responded) => ctx.forge.webhooks.dispatch(repo.id, "issue_comment", payload, responded);
}

/**
 * canUserWriteIssueCommentAttachment (issue_comment_attachment.go:355-366): signed in, the comment's poster or
 * a repository or site admin, AND able to write issues; else 403 "user should have permission to edit comment".
 */
function mustWriteComment(ctx: RequestContext, repo: RepoRow, comment: CommentRow): UserRow {
  const doer = requireToken(ctx);
  const { mode } = loadRepo(ctx);
  const ownerOrAdmin = doer.id === comment.poster_id || isRepoAdmin(mode) || doer.is_admin === 1;
  if (!ownerOrAdmin || !canWrite(unitMode(ctx.forge, repo, doer, "issues"))) throw apiError(ctx.forge.baseUrl, 403, "user should have permission to edit comment");
  return doer;
}

/**
 * getIssueCommentAttachmentSafeRead + attachmentBelongsToRepoOrComment (:368-400): a missing id is
 * NotFoundOrServerError's 404 `null`; another repository's attachment "no such attachment in repo"; one
 * that is not a comment's, or another comment's, "no such attachment in comment".
 */
function commentAttachmentOf(ctx: RequestContext, repo: RepoRow, comment: CommentRow): AttachmentRow {
  const a = ctx.forge.store.attachmentById(paramInt(ctx, "attachment_id"));
  if (!a) throw notFoundNull();
  const owner = ctx.forge.store.issueById(a.issue_id);
  if (!owner || owner.repo_id !== repo.id) throw notFound(ctx.forge.baseUrl, "no such attachment in repo");
  if (a.comment_id === 0 || a.comment_id !== comment.id) throw notFound(ctx.forge.baseUrl, "no such attachment in comment");
  return a;
}

/** GET …/issues/comments/{id}/assets (:73-110): the comment's attachments. */
export const listCommentAttachments: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const { comment } = loadComment(ctx, repo);
  return { status: 200, json: ctx.forge.store.attachmentsOfComment(comment.id).map((a) => toApiAttachment(ctx.forge, a)) };
};

/** GET …/issues/comments/{id}/assets/{attachment_id} (:23-71). */
export const getCommentAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const { comment } = loadComment(ctx, repo);
  return { status: 200, json: toApiAttachment(ctx.forge, commentAttachmentOf(ctx, repo, comment)) };
};

/**
 * POST …/issues/comments/{id}/assets (:112-236). After the file is stored, issue_service.UpdateComment runs
 * with the unchanged body at the version read with the comment (:230; services/issue/comments.go:78-118):
 * no content history (the body did not change), but the comment row is written again, so its updated_at
 * becomes now and its content version goes up by one (models/issues/comment.go:1166-1183), and an
 * `issue_comment` `edited` webhook is sent with changes.body.from = the body (notifier.go:363-404). The
 * issue's updated_at does not move. A comment changed in between fails with ErrCommentAlreadyChanged: 500.
 */
export const createCommentAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const { comment, issue } = loadComment(ctx, repo);
  const doer = mustWriteComment(ctx, repo, comment);
  const attachment = storeUpload(ctx, doer, issue, comment.id);
  ctx.forge.seams.afterAttachmentStored?.(attachment.id);
  if (!ctx.forge.store.changeCommentContent(comment.id, comment.body, comment.content_version, ctx.forge.nowUnix())) {
    throw apiError(ctx.forge.baseUrl, 500, doer.is_admin === 1 ? "the comment is already changed" : "");
  }
  return { status: 201, json: toApiAttachment(ctx.forge, attachment), after: commentEditedHook(ctx, repo, doer, comment, comment.body) };
};

/** PATCH …/issues/comments/{id}/assets/{attachment_id} (:238-297): renames when `name` is non-empty; 201. */
export const editCommentAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const form = bindBody(EditAttachmentOptions, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const { comment } = loadComment(ctx, repo);
  mustWriteComment(ctx, repo, comment);
  const a = commentAttachmentOf(ctx, repo, comment);
  if (form.value.name) ctx.forge.store.renameAttachment(a.id, form.value.name);
  return { status: 201, json: toApiAttachment(ctx.forge, ctx.forge.store.attachmentById(a.id) as AttachmentRow) };
};

/** DELETE …/issues/comments/{id}/assets/{attachment_id} (:299-346): 204; the comment is not touched. */
export const deleteCommentAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const { comment } = loadComment(ctx, repo);
  mustWriteComment(ctx, repo, comment);
  ctx.forge.store.deleteAttachment(commentAttachmentOf(ctx, repo, comment).id);
  return { status: 204 };
};
