/** Repository webhook routes (reqToken + reqAdmin): list, create, get, delete. */
import { loadRepo, paramInt, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { toApiHook } from "../convert.ts";
import { getListOptions } from "../paging.ts";
import { bindBody, CreateHookOption } from "../schemas.ts";
import type { RepoRow } from "../types.ts";

function adminRepo(ctx: RequestContext): RepoRow {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  if (mode !== "admin") throw apiError(ctx.forge.baseUrl, 403, "user should be an owner or a site admin");
  return repo;
}

export const listHooks: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  const all = ctx.forge.store.hooksOfRepo(repo.id);
  const list = getListOptions(ctx.url.searchParams);
  return {
    status: 200,
    json: all.slice(list.offset, list.offset + list.pageSize).map(toApiHook),
    headers: { "X-Total-Count": String(all.length), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

export const createHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  const form = bindBody(CreateHookOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const f = form.value;
  for (const name of ["url", "content_type"]) {
    if (!(name in f.config)) throw apiError(ctx.forge.baseUrl, 422, `Missing config option: ${name}`);
  }
  const contentType = f.config.content_type ?? "";
  if (contentType !== "json" && contentType !== "form") throw apiError(ctx.forge.baseUrl, 422, "Invalid content type");
  let url: URL;
  try {
    url = new URL(f.config.url ?? "");
  } catch {
    throw apiError(ctx.forge.baseUrl, 422, "Invalid url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw apiError(ctx.forge.baseUrl, 422, "Invalid url");
  const now = ctx.forge.nowUnix();
  // Forgejo defaults an empty event list to ["push"]; "active" defaults to false (swagger default).
  const events = f.events && f.events.length > 0 ? [...new Set(f.events)] : ["push"];
  const hook = ctx.forge.store.createHook({
    repo_id: repo.id,
    type: f.type,
    url: f.config.url ?? "",
    content_type: contentType,
    secret: f.config.secret ?? "",
    events: JSON.stringify(events),
    active: f.active ? 1 : 0,
    authorization_header: f.authorization_header ?? "",
    branch_filter: f.branch_filter ?? "",
    created_unix: now,
    updated_unix: now,
  });
  return { status: 201, json: toApiHook(hook) };
};

function loadHook(ctx: RequestContext, repo: RepoRow) {
  const hook = ctx.forge.store.hookById(paramInt(ctx, "id"));
  if (!hook || hook.repo_id !== repo.id) throw notFound(ctx.forge.baseUrl);
  return hook;
}

export const getHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  return { status: 200, json: toApiHook(loadHook(ctx, repo)) };
};

export const deleteHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  ctx.forge.store.deleteHook(loadHook(ctx, repo).id);
  return { status: 204 };
};
