import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiAccessGuard } from "./api-access.ts";
import { apiRoutes } from "./api-routes.ts";
import type { ApiDeps } from "./api-routes.ts";

export type { ApiDeps } from "./api-routes.ts";

/**
 * The bot's HTTP API beside the webhook path (docs/bot-api.openapi.yaml): GET
 * and HEAD only, one handler per route (api-routes.ts). Answers come from
 * memory: no Forgejo request is made here. False when no route matches.
 * A request the guard refuses gets 401 with `WWW-Authenticate: Bearer` and no detail.
 */
export async function handleApi(req: IncomingMessage, res: ServerResponse, d: ApiDeps & { guard: ApiAccessGuard }): Promise<boolean> {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  let url: URL;
  try {
    url = new URL(req.url ?? "/", "http://bot.local");
  } catch {
    return false; // no route can match a target that is not a URL: 404
  }
  const route = Object.hasOwn(apiRoutes, url.pathname) ? apiRoutes[url.pathname] : undefined;
  if (!route) return false;
  if (!d.guard.allows(req, url.pathname)) {
    const body = JSON.stringify({ error: "unauthorized" });
    res.writeHead(401, {
      "www-authenticate": 'Bearer realm="checkpost"',
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      "cache-control": "no-store",
    });
    res.end(body);
    return true;
  }
  // Answers may hold saved state: never cached by a proxy or browser.
  res.setHeader("cache-control", "no-store");
  return route(url, res, d, req);
}
