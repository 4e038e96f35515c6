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
 * Forgejo also checks [attachment] ALLOWED_TYPES and MAX_SIZE; this server does not.
 */
import { randomUUID } from "node:crypto";
import { canWrite, loadRepo, paramInt, requireToken } from "../access.ts";
import { apiError, notFound, notFoundNull } from "../api-error.ts";
import { toApiAttachment } from "../convert.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { bindBody, EditAttachmentOptions } from "../schemas.ts";
import type { AttachmentRow, IssueRow, RepoRow } from "../types.ts";

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

/**
 * POST …/assets (:116-231). The attachment's created_at is the issue's updated time, not the upload time
 * (CreatedUnix: issue.UpdatedUnix, :206-213). A request without the "attachment" file fails in
 * ctx.Req.FormFile and answers 500 (:194-198), whose message Forgejo blanks for non-admins in production
 * (services/context/api.go:187-193).
 */
export const createIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const issue = issueOf(ctx, repo);
  mustWrite(ctx, issue);
  const file = ctx.files?.find((f) => f.field === "attachment");
  if (!file) {
    const why = ctx.files === undefined ? "request Content-Type isn't multipart/form-data" : "http: no such file";
    throw apiError(ctx.forge.baseUrl, 500, doer.is_admin === 1 ? why : "");
  }
  const name = ctx.url.searchParams.get("name") || file.filename;
  const id = ctx.forge.store.insertAttachment({ uuid: randomUUID(), issueId: issue.id, uploaderId: doer.id, name, data: file.data, createdUnix: issue.updated_unix });
  return { status: 201, json: toApiAttachment(ctx.forge, ctx.forge.store.attachmentById(id) as AttachmentRow) };
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
