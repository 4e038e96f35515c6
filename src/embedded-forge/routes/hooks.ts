/** Repository webhook routes (reqToken + reqAdmin, routers/api/v1/api.go:1147-1156): list, create, get, edit, delete. */
import { loadRepo, paramInt, requireRepoAdmin, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { RequestContext, RouteHandler } from "../context.ts";
import { toApiHook } from "../convert.ts";
import { getListOptions } from "../paging.ts";
import { bindBody, CreateHookOption, EditHookOption } from "../schemas.ts";
import type { RepoRow } from "../types.ts";
import { expandHookEvents } from "../hook-events.ts";

function adminRepo(ctx: RequestContext): RepoRow {
  const { repo, mode } = loadRepo(ctx);
  requireToken(ctx);
  requireRepoAdmin(ctx, mode);
  return repo;
}

/** ListHooks pages and sets X-Total-Count only (routers/api/v1/repo/hook.go:77), no Link. */
export const listHooks: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  const all = ctx.forge.store.hooksOfRepo(repo.id);
  const list = getListOptions(ctx.url.searchParams, ctx.forge.maxResponseItems);
  return {
    status: 200,
    json: all.slice(list.offset, list.offset + list.pageSize).map((h) => toApiHook(ctx.forge, h)),
    headers: { "X-Total-Count": String(all.length), "Access-Control-Expose-Headers": "X-Total-Count" },
  };
};

function validUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** routers/api/v1/utils/hook.go:82-102 (checkCreateHookOption) then addHook (:165-262). */
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
  if (!validUrl(f.config.url ?? "")) throw apiError(ctx.forge.baseUrl, 422, "Invalid url");
  const now = ctx.forge.nowUnix();
  // An empty event list means ["push"] (hook.go:171-173); "active" defaults to false (a plain bool).
  const events = expandHookEvents(f.events && f.events.length > 0 ? f.events : ["push"]);
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
  return { status: 201, json: toApiHook(ctx.forge, hook) };
};

function loadHook(ctx: RequestContext, repo: RepoRow) {
  const hook = ctx.forge.store.hookById(paramInt(ctx, "id"));
  if (!hook || hook.repo_id !== repo.id) throw notFound(ctx.forge.baseUrl);
  return hook;
}

export const getHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  return { status: 200, json: toApiHook(ctx.forge, loadHook(ctx, repo)) };
};

/**
 * PATCH /repos/{o}/{r}/hooks/{id} (utils/hook.go:309-419, editHook): config url/content_type are checked and
 * replaced when given; `events` is ALWAYS rewritten, an absent or empty list meaning ["push"] (:366-368),
 * so a PATCH of {"active": true} alone turns a hook's issue events off, as on Forgejo; branch_filter and
 * authorization_header are always overwritten; `active` only when present. 200 with the hook.
 */
export const editHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  const form = bindBody(EditHookOption, ctx.body);
  if (!form.ok) throw apiError(ctx.forge.baseUrl, 422, form.message);
  const hook = loadHook(ctx, repo);
  const f = form.value;
  let url = hook.url;
  let contentType = hook.content_type;
  if (f.config) {
    if (f.config.url !== undefined) {
      if (!validUrl(f.config.url)) throw apiError(ctx.forge.baseUrl, 422, "Invalid url");
      url = f.config.url;
    }
    if (f.config.content_type !== undefined) {
      if (f.config.content_type !== "json" && f.config.content_type !== "form") throw apiError(ctx.forge.baseUrl, 422, "Invalid content type");
      contentType = f.config.content_type;
    }
  }
  const events = expandHookEvents(f.events && f.events.length > 0 ? f.events : ["push"]);
  ctx.forge.store.updateHook(hook.id, {
    url,
    content_type: contentType,
    events: JSON.stringify(events),
    branch_filter: f.branch_filter ?? "",
    authorization_header: f.authorization_header ?? "",
    active: f.active === undefined || f.active === null ? hook.active : f.active ? 1 : 0,
    updated_unix: ctx.forge.nowUnix(),
  });
  return { status: 200, json: toApiHook(ctx.forge, loadHook(ctx, repo)) };
};

export const deleteHook: RouteHandler = (ctx) => {
  const repo = adminRepo(ctx);
  ctx.forge.store.deleteHook(loadHook(ctx, repo).id);
  return { status: 204 };
};
