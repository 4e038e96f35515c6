/**
 * Issue attachments ("assets"): list, upload (multipart/form-data, field
 * "attachment", optional ?name=), get one. As routers/api/v1/repo/issue_attachment.go:
 * uploading needs a signed-in user who can write issues or posted the issue;
 * the file is served at browser_download_url (/attachments/{uuid}).
 * A missing issue or attachment answers ctx.NotFound's body (errors, message, url), though the
 * swagger declares the plain "error" response for these routes: the source wins.
 * Forgejo also checks [attachment] ALLOWED_TYPES (".gz" is allowed by default)
 * and MAX_SIZE; this server does not.
 */
import { randomUUID } from "node:crypto";
import { canWrite, loadIssue, loadRepo, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { Renderer } from "../convert.ts";
import type { RouteHandler } from "../context.ts";
import { rfc3339 } from "../time.ts";
import type { AttachmentRow } from "../types.ts";

/** convert.ToAPIAttachment (keys in Go struct order). */
export function toApiAttachment(r: Renderer, a: AttachmentRow): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    size: a.size,
    download_count: 0,
    created_at: rfc3339(a.created_unix),
    uuid: a.uuid,
    browser_download_url: `${r.baseUrl}/attachments/${a.uuid}`,
    type: "attachment",
  };
}

export const listIssueAttachments: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = loadIssue(ctx, repo, false);
  return { status: 200, json: ctx.forge.store.attachmentsOfIssue(issue.id).map((a) => toApiAttachment(ctx.forge, a)) };
};

export const getIssueAttachment: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const issue = loadIssue(ctx, repo, false);
  const a = ctx.forge.store.attachmentById(Number(ctx.params.attachment_id));
  if (!a || a.issue_id !== issue.id) throw notFound(ctx.forge.baseUrl);
  return { status: 200, json: toApiAttachment(ctx.forge, a) };
};

export const createIssueAttachment: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const issue = loadIssue(ctx, repo, false);
  if (!canWrite(mode) && issue.poster_id !== doer.id) throw apiError(ctx.forge.baseUrl, 403, "user should have permission to write issues");
  const file = ctx.files?.find((f) => f.field === "attachment");
  if (!file) throw apiError(ctx.forge.baseUrl, 400, 'attachment is required (multipart/form-data field "attachment")');
  const name = ctx.url.searchParams.get("name") || file.filename;
  const id = ctx.forge.store.insertAttachment({ uuid: randomUUID(), issueId: issue.id, uploaderId: doer.id, name, data: file.data, createdUnix: ctx.forge.nowUnix() });
  return { status: 201, json: toApiAttachment(ctx.forge, ctx.forge.store.attachmentById(id) as AttachmentRow) };
};
