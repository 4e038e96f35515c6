/**
 * The API router: every route this server answers, as swagger path templates under basePath /api/v1, with
 * its handler. FORGE_ROUTES is derived from this one table, so a route cannot exist without being listed
 * (test/forge/conformance.test.ts fails when a listed route has no conformance case).
 */
import type { RouteHandler } from "./context.ts";
import {
  createCommentAttachment,
  createIssueAttachment,
  deleteCommentAttachment,
  deleteIssueAttachment,
  editCommentAttachment,
  editIssueAttachment,
  getCommentAttachment,
  getIssueAttachment,
  listCommentAttachments,
  listIssueAttachments,
} from "./routes/assets.ts";
import { addCollaborator, deleteCollaborator, getRepoPermissions, isCollaborator, listCollaborators } from "./routes/collaborators.ts";
import { createComment, deleteComment, editComment, getComment, listComments } from "./routes/comments.ts";
import { createHook, deleteHook, editHook, getHook, listHooks } from "./routes/hooks.ts";
import { createIssue, deleteIssue, editIssue, getIssue, listIssues } from "./routes/issues.ts";
import { addIssueLabels, clearIssueLabels, createRepoLabel, listIssueLabels, listRepoLabels, replaceIssueLabels } from "./routes/labels.ts";
import { createCurrentUserRepo, getCurrentUser, getRepo, getVersion } from "./routes/meta.ts";
import { getApiSettings, getAttachmentSettings } from "./routes/settings.ts";
import { getTeamMember, listRepoTeams } from "./routes/teams.ts";

export type RouteMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface RouteSpec {
  method: RouteMethod;
  /** Swagger path template, e.g. "/repos/{owner}/{repo}/issues/{index}". */
  path: string;
  /** Stable id used by stats and fault matching: "METHOD path". */
  id: string;
}

interface Route extends RouteSpec {
  handler: RouteHandler;
}

function route(method: RouteMethod, path: string, handler: RouteHandler): Route {
  return { method, path, id: `${method} ${path}`, handler };
}

const ROUTER: readonly Route[] = [
  route("GET", "/version", getVersion),
  route("GET", "/settings/api", getApiSettings),
  route("GET", "/settings/attachment", getAttachmentSettings),
  route("GET", "/user", getCurrentUser),
  route("POST", "/user/repos", createCurrentUserRepo),
  route("GET", "/repos/{owner}/{repo}", getRepo),
  route("GET", "/repos/{owner}/{repo}/issues", listIssues),
  route("POST", "/repos/{owner}/{repo}/issues", createIssue),
  route("GET", "/repos/{owner}/{repo}/issues/comments/{id}", getComment),
  route("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", editComment),
  route("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", deleteComment),
  route("GET", "/repos/{owner}/{repo}/issues/comments/{id}/assets", listCommentAttachments),
  route("POST", "/repos/{owner}/{repo}/issues/comments/{id}/assets", createCommentAttachment),
  route("GET", "/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}", getCommentAttachment),
  route("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}", editCommentAttachment),
  route("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}", deleteCommentAttachment),
  route("GET", "/repos/{owner}/{repo}/issues/{index}", getIssue),
  route("PATCH", "/repos/{owner}/{repo}/issues/{index}", editIssue),
  route("DELETE", "/repos/{owner}/{repo}/issues/{index}", deleteIssue),
  route("GET", "/repos/{owner}/{repo}/issues/{index}/comments", listComments),
  route("POST", "/repos/{owner}/{repo}/issues/{index}/comments", createComment),
  route("GET", "/repos/{owner}/{repo}/issues/{index}/assets", listIssueAttachments),
  route("POST", "/repos/{owner}/{repo}/issues/{index}/assets", createIssueAttachment),
  route("GET", "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}", getIssueAttachment),
  route("PATCH", "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}", editIssueAttachment),
  route("DELETE", "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}", deleteIssueAttachment),
  route("GET", "/repos/{owner}/{repo}/issues/{index}/labels", listIssueLabels),
  route("POST", "/repos/{owner}/{repo}/issues/{index}/labels", addIssueLabels),
  route("PUT", "/repos/{owner}/{repo}/issues/{index}/labels", replaceIssueLabels),
  route("DELETE", "/repos/{owner}/{repo}/issues/{index}/labels", clearIssueLabels),
  route("GET", "/repos/{owner}/{repo}/labels", listRepoLabels),
  route("POST", "/repos/{owner}/{repo}/labels", createRepoLabel),
  route("GET", "/repos/{owner}/{repo}/collaborators", listCollaborators),
  route("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}", isCollaborator),
  route("PUT", "/repos/{owner}/{repo}/collaborators/{collaborator}", addCollaborator),
  route("DELETE", "/repos/{owner}/{repo}/collaborators/{collaborator}", deleteCollaborator),
  route("GET", "/repos/{owner}/{repo}/collaborators/{collaborator}/permission", getRepoPermissions),
  route("GET", "/repos/{owner}/{repo}/teams", listRepoTeams),
  route("GET", "/teams/{id}/members/{username}", getTeamMember),
  route("GET", "/repos/{owner}/{repo}/hooks", listHooks),
  route("POST", "/repos/{owner}/{repo}/hooks", createHook),
  route("GET", "/repos/{owner}/{repo}/hooks/{id}", getHook),
  route("PATCH", "/repos/{owner}/{repo}/hooks/{id}", editHook),
  route("DELETE", "/repos/{owner}/{repo}/hooks/{id}", deleteHook),
];

/** Every route of the router (method, path template, id), in router order. */
export const FORGE_ROUTES: readonly RouteSpec[] = ROUTER.map(({ method, path, id }) => ({ method, path, id }));

/**
 * The methods Forgejo v13.0.5 itself registers on each path this server routes (from the swagger's paths;
 * test/forge/conformance.test.ts checks this table against fixtures/forgejo/swagger.v1.json). A method
 * Forgejo has but this server lacks answers like an unknown route; one Forgejo lacks too answers 405.
 */
export const FORGEJO_METHODS: Readonly<Record<string, readonly RouteMethod[]>> = {
  "/version": ["GET"],
  "/settings/api": ["GET"],
  "/settings/attachment": ["GET"],
  "/user": ["GET"],
  "/user/repos": ["GET", "POST"],
  "/repos/{owner}/{repo}": ["GET", "DELETE", "PATCH"],
  "/repos/{owner}/{repo}/issues": ["GET", "POST"],
  "/repos/{owner}/{repo}/issues/comments/{id}": ["GET", "PATCH", "DELETE"],
  "/repos/{owner}/{repo}/issues/comments/{id}/assets": ["GET", "POST"],
  "/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}": ["GET", "PATCH", "DELETE"],
  "/repos/{owner}/{repo}/issues/{index}": ["GET", "PATCH", "DELETE"],
  "/repos/{owner}/{repo}/issues/{index}/comments": ["GET", "POST"],
  "/repos/{owner}/{repo}/issues/{index}/assets": ["GET", "POST"],
  "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}": ["GET", "PATCH", "DELETE"],
  "/repos/{owner}/{repo}/issues/{index}/labels": ["GET", "POST", "PUT", "DELETE"],
  "/repos/{owner}/{repo}/labels": ["GET", "POST"],
  "/repos/{owner}/{repo}/collaborators": ["GET"],
  "/repos/{owner}/{repo}/collaborators/{collaborator}": ["GET", "PUT", "DELETE"],
  "/repos/{owner}/{repo}/collaborators/{collaborator}/permission": ["GET"],
  "/repos/{owner}/{repo}/teams": ["GET"],
  "/teams/{id}/members/{username}": ["GET", "PUT", "DELETE"],
  "/repos/{owner}/{repo}/hooks": ["GET", "POST"],
  "/repos/{owner}/{repo}/hooks/{id}": ["GET", "PATCH", "DELETE"],
};

interface Compiled {
  route: Route;
  re: RegExp;
  names: string[];
}

const compiled: Compiled[] = ROUTER.map((r) => {
  const names: string[] = [];
  const src = r.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route: r, re: new RegExp(`^${src}$`), names };
});

export type RouteMatch =
  | { spec: RouteSpec; handler: RouteHandler; params: Record<string, string> }
  /** No route for this method: `forgejoMethods` lists what Forgejo registers on the path (empty: unknown path). */
  | { spec: null; forgejoMethods: readonly RouteMethod[] };

/** Match an API path (without /api/v1). */
export function matchRoute(method: string, path: string): RouteMatch {
  let template: string | undefined;
  for (const c of compiled) {
    const m = c.re.exec(path);
    if (!m) continue;
    // "comments" is a literal segment: /issues/comments/{id} must not be read as /issues/{index}/...
    if (c.names.includes("index") && m[c.names.indexOf("index") + 1] === "comments") continue;
    template ??= c.route.path;
    if (c.route.method !== method) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1] ?? "");
    });
    const { handler, ...spec } = c.route;
    return { spec: { method: spec.method, path: spec.path, id: spec.id }, handler, params };
  }
  return { spec: null, forgejoMethods: template ? (FORGEJO_METHODS[template] ?? []) : [] };
}
