/**
 * Collaborator routes (routers/api/v1/repo/collaborators.go, behind reqToken, routers/api/v1/api.go:1157-1165):
 * the list, the membership check, add (PUT) and remove (DELETE), and one user's permission.
 */
import { accessMode, isRepoAdmin, loadRepo, requireRepoAdmin, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { toApiUser } from "../convert.ts";
import { getListOptions } from "../paging.ts";
import { AddCollaboratorOption, bindBody } from "../schemas.ts";
import type { CollaboratorMode, UserRow } from "../types.ts";

/**
 * GET /repos/{owner}/{repo}/collaborators (reqAnyRepoReader): users of the collaboration table, paged.
 * Only X-Total-Count is set, no Link: ListCollaborators calls SetTotalCountHeader alone (collaborators.go:76).
 */
export const listCollaborators: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const all = ctx.forge.store.collaboratorsOfRepo(repo.id);
  const list = getListOptions(ctx.url.searchParams, ctx.forge.maxResponseItems);
  return {
    status: 200,
    json: all.slice(list.offset, list.offset + list.pageSize).map((c) => toApiUser(ctx.forge, c.user, doer)),
    headers: { "X-Total-Count": String(all.length), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

/** user_model.GetUserByName for the {collaborator} segment; an unknown user is a 422 here (collaborators.go:112-119). */
function collaboratorUser(ctx: RequestContext): UserRow {
  const name = ctx.params.collaborator ?? "";
  const user = ctx.forge.store.userByLogin(name);
  if (!user) throw apiError(ctx.forge.baseUrl, 422, `user does not exist [uid: 0, name: ${name}]`);
  return user;
}

/** GET /repos/{o}/{r}/collaborators/{collaborator} (collaborators.go:81-131): 204 when a collaborator, 404 when not, 422 for an unknown user. */
export const isCollaborator: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  const user = collaboratorUser(ctx);
  if (ctx.forge.store.collaboratorMode(repo.id, user.id) === undefined) throw notFound(ctx.forge.baseUrl);
  return { status: 204 };
};

/**
 * PUT /repos/{o}/{r}/collaborators/{collaborator} (reqAdmin; collaborators.go:134-204): a new collaboration
 * starts as write (modules/repository/collaborator.go:34-38), an existing one is kept; then `permission`,
 * when given, is applied, and a value perm.ParseAccessMode does not know ("owner", "x") is silently
 * discarded (models/repo/collaboration.go:101-105). 204.
 */
export const addCollaborator: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  requireRepoAdmin(ctx, mode);
  const form = bindBody(AddCollaboratorOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const user = collaboratorUser(ctx);
  const store = ctx.forge.store;
  store.transaction(() => {
    if (store.collaboratorMode(repo.id, user.id) === undefined) store.setCollaborator(repo.id, user.id, "write");
    const wanted = form.value.permission;
    if (wanted === "read" || wanted === "write" || wanted === "admin") store.setCollaborator(repo.id, user.id, wanted satisfies CollaboratorMode);
  });
  return { status: 204 };
};

/** DELETE /repos/{o}/{r}/collaborators/{collaborator} (reqAdmin; collaborators.go:207-252): 204, also when the user was no collaborator. */
export const deleteCollaborator: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  requireRepoAdmin(ctx, mode);
  const user = collaboratorUser(ctx);
  ctx.forge.store.removeCollaborator(repo.id, user.id);
  return { status: 204 };
};

/**
 * GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission (collaborators.go:255-311): 404 for an
 * unknown user; 403 unless the doer is a site admin, the repo's admin, or asks about themselves; else
 * convert.ToUserAndPermission: {permission, role_name, user}, both strings being AccessMode.String() of
 * GetUserRepoPermission (see accessMode): "owner" for a site admin as for the repository's owner.
 */
export const getRepoPermissions: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const user = ctx.forge.store.userByLogin(ctx.params.collaborator ?? "");
  if (!user) throw apiError(ctx.forge.baseUrl, 404, `user does not exist [uid: 0, name: ${ctx.params.collaborator ?? ""}]`);
  if (doer.is_admin !== 1 && doer.id !== user.id && !isRepoAdmin(mode)) {
    throw apiError(ctx.forge.baseUrl, 403, "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own");
  }
  const permission = accessMode(ctx.forge, repo, user);
  // The user is rendered for ctx.ContextUser, which repoAssignment sets to the repository's owner
  // (routers/api/v1/api.go:172), not for the doer.
  const owner = ctx.forge.store.userById(repo.owner_id) ?? doer;
  return { status: 200, json: { permission, role_name: permission, user: toApiUser(ctx.forge, user, owner) } };
};
