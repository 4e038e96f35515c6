import type { IncomingMessage, ServerResponse } from "node:http";
import { apiRoutes } from "./api-routes.ts";
import type { ApiDeps } from "./api-routes.ts";

export type { ApiDeps } from "./api-routes.ts";

/**
 * The bot's HTTP API beside the webhook path (docs/bot-api.openapi.yaml): GET
 * and HEAD only, one handler per route (api-routes.ts). Answers come from
 * memory: no Forgejo request is made here. False when no route matches.
 */
export async function handleApi(req: IncomingMessage, res: ServerResponse, d: ApiDeps): Promise<boolean> {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const url = new URL(req.url ?? "/", "http://bot.local");
  const route = Object.hasOwn(apiRoutes, url.pathname) ? apiRoutes[url.pathname] : undefined;
  if (!route) return false;
  return route(url, res, d, req);
}
