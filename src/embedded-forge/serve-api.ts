/** The /api/v1 half of startForge: route, injected faults, authentication, body, handler, answer. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticate, credentialsFromRequest, requesterOf } from "./access.ts";
import { ApiFailure, apiError, methodNotAllowed, swaggerUrl, unknownRoute } from "./api-error.ts";
import type { RequestContext } from "./context.ts";
import { statusOfFault } from "./faults.ts";
import { sendResult } from "./http-io.ts";
import type { ServeDeps } from "./http-io.ts";
import { matchRoute } from "./routes-table.ts";
import type { ApiResult } from "./types.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The JSON body, or the files of a multipart/form-data body (its text fields, e.g. `updated_at`, become
 * `body` as a string record); a JSON syntax error is Forgejo's 422.
 */
async function parseApiBody(baseUrl: string, raw: Buffer, contentType: string): Promise<{ body: unknown; files: RequestContext["files"] }> {
  let body: unknown;
  let files: RequestContext["files"];
  if (raw.length > 0 && /^multipart\/form-data/i.test(contentType)) {
    try {
      const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
      files = [];
      const fields: Record<string, string> = {};
      for (const [field, v] of form.entries()) {
        if (typeof v !== "string") files.push({ field, filename: v.name, data: Buffer.from(await v.arrayBuffer()) });
        else fields[field] ??= v;
      }
      body = fields;
    } catch {
      // Go's ParseMultipartForm fails the same way; the upload handler answers it (500, as Forgejo).
      files = [];
    }
  } else if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch (err) {
      throw apiError(baseUrl, 422, `[]: ${err instanceof Error ? err.message : "invalid JSON"}`);
    }
  }
  return { body, files };
}

export async function serveApi(d: ServeDeps, req: IncomingMessage, res: ServerResponse, method: string, url: URL, raw: Buffer, responded: Promise<void>): Promise<void> {
  const { forge, faults, stats, logger } = d;
  const apiPath = url.pathname.slice("/api/v1".length) || "/";
  const match = matchRoute(method, apiPath);
  const routeId = match.spec ? match.spec.id : "UNMATCHED";
  stats.totalRequests++;
  stats.requests[routeId] = (stats.requests[routeId] ?? 0) + 1;
  const requester = requesterOf(forge, credentialsFromRequest(url, req.headers));
  const byRoute = stats.requestsBy[requester] ?? {};
  byRoute[routeId] = (byRoute[routeId] ?? 0) + 1;
  stats.requestsBy[requester] = byRoute;

  const faulty = faults.applies(method, routeId);
  if (faulty && faults.latencyMs() > 0) await sleep(faults.latencyMs());
  const throttle = faulty ? faults.bandwidth() : 0;
  const kind = faulty ? faults.decide(method) : null;
  if (kind === "reset") {
    req.socket.destroy();
    return;
  }
  if (kind && kind !== "commitThenDrop") {
    const status = statusOfFault(kind);
    const headers: Record<string, string> = kind === "rateLimit" ? { "Retry-After": String(faults.retryAfterSec()) } : {};
    const message = kind === "rateLimit" ? "rate limit exceeded (injected fault)" : "injected fault";
    return sendResult(stats, res, { status, json: { message, url: swaggerUrl(forge.baseUrl) }, headers }, throttle);
  }

  let result: ApiResult;
  try {
    // Authentication is router middleware (m.Use(shared.Middlewares()), routers/api/v1/api.go:834), so it
    // runs before routing: a bad token is a 401 even on a path no route matches.
    const doer = await authenticate(forge, credentialsFromRequest(url, req.headers), { limiter: d.signIns, ip: req.socket.remoteAddress ?? "unknown" });
    if (!match.spec) {
      // A method Forgejo registers on this path but this server does not implement answers like any
      // route this server lacks; a method Forgejo lacks too gets chi's 405.
      throw match.forgejoMethods.length > 0 && !match.forgejoMethods.includes(method as never) ? methodNotAllowed(match.forgejoMethods) : unknownRoute();
    }
    const { body, files } = await parseApiBody(forge.baseUrl, raw, String(req.headers["content-type"] ?? ""));
    const ctx: RequestContext = { forge, method, url, params: match.params, doer, body, ...(files ? { files } : {}) };
    result = match.handler(ctx);
  } catch (err) {
    if (err instanceof ApiFailure) result = err.result;
    else {
      logger.error({ err, route: routeId, method }, "forge handler failed");
      result = { status: 500, json: { message: err instanceof Error ? err.message : "internal error", url: swaggerUrl(forge.baseUrl) } };
    }
  }
  // routers/api/shared/middleware.go:158-167 (securityHeaders) sets this on every API response.
  result.headers = { ...result.headers, "X-Content-Type-Options": "nosniff" };
  result.after?.(responded);
  logger.debug({ method, route: routeId, status: result.status, fault: kind }, "forge request");
  if (kind === "commitThenDrop") {
    req.socket.destroy();
    return;
  }
  await sendResult(stats, res, result, throttle);
}
