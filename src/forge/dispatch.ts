/** Maps FORGE_ROUTES ids to handlers. */
import { createIssueAttachment, getIssueAttachment, listIssueAttachments } from "./routes/assets.ts";
import type { RouteHandler } from "./context.ts";
import { createComment, deleteComment, editComment, getComment, listComments } from "./routes/comments.ts";
import { getRepoPermissions, listCollaborators } from "./routes/collaborators.ts";
import { createHook, deleteHook, getHook, listHooks } from "./routes/hooks.ts";
import { createIssue, editIssue, getIssue, listIssues } from "./routes/issues.ts";
import { addIssueLabels, createRepoLabel, listIssueLabels, listRepoLabels } from "./routes/labels.ts";
import { createCurrentUserRepo, getCurrentUser, getRepo, getVersion } from "./routes/meta.ts";

export const ROUTE_HANDLERS: Readonly<Record<string, RouteHandler>> = {
  "GET /version": getVersion,
  "GET /user": getCurrentUser,
  "POST /user/repos": createCurrentUserRepo,
  "GET /repos/{owner}/{repo}": getRepo,
  "GET /repos/{owner}/{repo}/issues": listIssues,
  "POST /repos/{owner}/{repo}/issues": createIssue,
  "GET /repos/{owner}/{repo}/issues/comments/{id}": getComment,
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}": editComment,
  "DELETE /repos/{owner}/{repo}/issues/comments/{id}": deleteComment,
  "GET /repos/{owner}/{repo}/issues/{index}": getIssue,
  "PATCH /repos/{owner}/{repo}/issues/{index}": editIssue,
  "GET /repos/{owner}/{repo}/issues/{index}/comments": listComments,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": createComment,
  "GET /repos/{owner}/{repo}/issues/{index}/assets": listIssueAttachments,
  "POST /repos/{owner}/{repo}/issues/{index}/assets": createIssueAttachment,
  "GET /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}": getIssueAttachment,
  "GET /repos/{owner}/{repo}/issues/{index}/labels": listIssueLabels,
  "POST /repos/{owner}/{repo}/issues/{index}/labels": addIssueLabels,
  "GET /repos/{owner}/{repo}/labels": listRepoLabels,
  "POST /repos/{owner}/{repo}/labels": createRepoLabel,
  "GET /repos/{owner}/{repo}/collaborators": listCollaborators,
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": getRepoPermissions,
  "GET /repos/{owner}/{repo}/hooks": listHooks,
  "POST /repos/{owner}/{repo}/hooks": createHook,
  "GET /repos/{owner}/{repo}/hooks/{id}": getHook,
  "DELETE /repos/{owner}/{repo}/hooks/{id}": deleteHook,
};
