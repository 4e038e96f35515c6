/** GET /version, GET /user, GET /repos/{owner}/{repo}. */
import { loadRepo, requireToken } from "../access.ts";
import { apiError } from "../api-error.ts";
import { bindBody, CreateRepoOption } from "../schemas.ts";
import type { RouteHandler } from "../context.ts";
import { toApiRepo, toApiUser } from "../convert.ts";

/** FORGEJO_VERSION + "+" + GITEA_COMPATIBILITY at v13.0.5. */
export const FORGEJO_VERSION = "13.0.5+gitea-1.22.0";

export const getVersion: RouteHandler = () => ({ status: 200, json: { version: FORGEJO_VERSION } });

export const getCurrentUser: RouteHandler = (ctx) => {
  const doer = requireToken(ctx);
  return { status: 200, json: toApiUser(ctx.forge, doer, doer) };
};

export const getRepo: RouteHandler = (ctx) => {
  const { repo, mode } = loadRepo(ctx);
  return { status: 200, json: toApiRepo(ctx.forge, repo, mode) };
};

/** POST /user/repos: create a repository owned by the doer (201; 409 when the name is taken). */
export const createCurrentUserRepo: RouteHandler = (ctx) => {
  const doer = requireToken(ctx);
  const form = bindBody(CreateRepoOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  if (!/^[A-Za-z0-9_.-]+$/.test(form.value.name)) throw apiError(ctx.forge.baseUrl, 422, "[Name]: AlphaDashDot");
  if (ctx.forge.store.repoByName(doer.login, form.value.name)) {
    throw apiError(ctx.forge.baseUrl, 409, "The repository with the same name already exists.");
  }
  const repo = ctx.forge.store.createRepo(doer.id, form.value.name, { private: form.value.private === true, description: form.value.description ?? "" }, ctx.forge.nowUnix());
  return { status: 201, json: toApiRepo(ctx.forge, repo, "owner") };
};
