/**
 * Collaborator routes (routers/api/v1/repo/collaborators.go, behind reqToken): the list of collaborators
 * and one user's permission on the repository.
 */
import { loadRepo, requireToken } from "../access.ts";
import { apiError } from "../api-error.ts";
import type { RouteHandler } from "../context.ts";
import { toApiUser } from "../convert.ts";
import { getListOptions } from "../paging.ts";
import type { RepoRow, UserRow } from "../types.ts";

/** GET /repos/{owner}/{repo}/collaborators (reqAnyRepoReader): users of the collaboration table, paged, X-Total-Count. */
export const listCollaborators: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const all = ctx.forge.store.collaboratorsOfRepo(repo.id);
  const list = getListOptions(ctx.url.searchParams);
  return {
    status: 200,
    json: all.slice(list.offset, list.offset + list.pageSize).map((c) => toApiUser(ctx.forge, c.user, doer)),
    headers: { "X-Total-Count": String(all.length), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

/**
 * access_model.GetUserRepoPermission reduced to what this server models: site admin → "admin", the repo's
 * owner → "owner", a collaborator → their mode, anyone else → "read" on a public repo, "none" on a private one.
 */
function permissionString(ctx: Parameters<RouteHandler>[0], repo: RepoRow, user: UserRow): string {
  if (user.is_admin === 1) return "admin";
  if (user.id === repo.owner_id) return "owner";
  const mode = ctx.forge.store.collaboratorMode(repo.id, user.id);
  if (mode && mode !== "none") return mode;
  return repo.private ? "none" : "read";
}

/**
 * GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission: 404 for an unknown user; 403 unless the
 * doer is a site admin, the repo's admin, or asks about themselves; else convert.ToUserAndPermission
 * ({permission, role_name, user}, role_name being the same access-mode string).
 */
export const getRepoPermissions: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  const doer = requireToken(ctx);
  const user = ctx.forge.store.userByLogin(ctx.params.collaborator ?? "");
  if (!user) throw apiError(ctx.forge.baseUrl, 404, `user does not exist [uid: 0, name: ${ctx.params.collaborator ?? ""}]`);
  if (doer.is_admin !== 1 && doer.id !== user.id && mode !== "admin") {
    throw apiError(ctx.forge.baseUrl, 403, "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own");
  }
  const permission = permissionString(ctx, repo, user);
  return { status: 200, json: { permission, role_name: permission, user: toApiUser(ctx.forge, user, doer) } };
};
