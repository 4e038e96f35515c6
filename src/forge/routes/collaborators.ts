/** GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission. */
import { accessMode, loadRepo, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { RouteHandler } from "../context.ts";
import { toApiUser } from "../convert.ts";

/**
 * repo.GetRepoPermissions: token required (the collaborators group's reqToken()); the doer must
 * be a site admin, a repo admin, or ask about themself (403 otherwise, with Forgejo's message);
 * an unknown user is 404. `permission` and `role_name` are the access mode's string: "owner" for
 * the repository's owner, else "admin", "write", "read" or "none" (a public repo is readable by
 * all). Forgejo's check compares the doer's LoginName with the path; for local users LoginName is
 * empty, so there self-queries by non-admins are refused: we follow the documented intent
 * (collaborators may ask about themselves) since checkpost only asks with the bot's own token.
 */
export const getRepoPermissions: RouteHandler = (ctx) => {
  const doer = requireToken(ctx);
  const { repo, mode } = loadRepo(ctx);
  const name = ctx.params.collaborator ?? "";
  if (doer.is_admin !== 1 && mode !== "admin" && doer.login.toLowerCase() !== name.toLowerCase()) {
    throw apiError(ctx.forge.baseUrl, 403, "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own");
  }
  const user = ctx.forge.store.userByLogin(name);
  if (!user) throw notFound(ctx.forge.baseUrl);
  const permission = user.id === repo.owner_id ? "owner" : accessMode(ctx.forge, repo, user);
  return { status: 200, json: { permission, role_name: permission, user: toApiUser(ctx.forge, user, doer) } };
};
