/** startForge(): the HTTP server (API under /api/v1, read-only web view elsewhere) with fault injection. */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { authenticate, credentialsFromRequest } from "./access.ts";
import { createAdmin, type ForgeAdmin } from "./admin.ts";
import { ApiFailure, apiError, methodNotAllowed, swaggerUrl, unknownRoute } from "./api-error.ts";
import type { ForgeContext, RequestContext } from "./context.ts";
import { FaultController, statusOfFault } from "./faults.ts";
import { goJsonEncode } from "./go-json.ts";
import { matchRoute } from "./routes-table.ts";
import { ForgeStore } from "./store-sqlite.ts";
import { writeThrottled } from "./throttle.ts";
import type { ApiResult, ForgeOptions } from "./types.ts";
import { renderWeb } from "./web-view.ts";
import { handleWebPost } from "./web-actions.ts";
import { webAsset } from "./web-assets.ts";
import { WebSessions } from "./web-session.ts";
import { DEFAULT_SIGN_IN_LIMITS, SignInLimiter } from "./sign-in-limit.ts";
import { WebhookDispatcher } from "./webhooks.ts";

export interface ForgeServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + "/api/v1" */
  apiUrl: string;
  port: number;
  admin: ForgeAdmin;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Why a request body was not read: too large (413) or too slow (408). */
class BodyError extends Error {
  constructor(readonly status: 408 | 413) {
    super(status === 413 ? "request body too large" : "request body timed out");
  }
}

/**
 * The whole request body, or a BodyError: over `maxBytes` (announced by Content-Length or counted as it
 * streams) or not complete within `timeoutMs`. Reading stops at once; the caller answers and closes.
 */
function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > maxBytes) return reject(new BodyError(413));
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off("data", onData);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks));
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) finish(new BodyError(413));
      else chunks.push(c);
    };
    const timer = setTimeout(() => finish(new BodyError(408)), timeoutMs);
    req.on("data", onData);
    req.on("end", () => finish(null));
    req.on("error", (e) => finish(e));
  });
}

/** Go's net/http answer to a request line it cannot parse (e.g. a bad %-escape in the path): plain 400, then close. */
function badRequest(res: ServerResponse): void {
  const body = "400 Bad Request";
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.length), Connection: "close" });
  res.end(body);
}

/** True when every %-escape of the path decodes (url.ParseRequestURI in Go rejects the request otherwise). */
function pathDecodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export async function startForge(options: ForgeOptions = {}): Promise<ForgeServer> {
  const host = options.host ?? "127.0.0.1";
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 60_000;
  const logger = options.logger ?? pino({ level: "silent" });
  const store = new ForgeStore(options.dataDir);
  let clock = options.clock ?? Date.now;
  const faults = new FaultController(options.faults, options.seed ?? 1);
  const stats = { requests: {} as Record<string, number>, totalRequests: 0, bytesSent: 0 };
  const webSessions = new WebSessions();
  const signIns = new SignInLimiter({ ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits }, () => clock());
  const webhooks = new WebhookDispatcher(store, logger, options.webhookTimeoutMs ?? 5000);
  const forge: ForgeContext = {
    store,
    baseUrl: "",
    logger,
    webhooks,
    nowUnix: () => Math.floor(clock() / 1000),
    maxResponseItems: options.maxResponseItems ?? 50,
  };

  async function send(res: ServerResponse, result: ApiResult, throttle: number): Promise<void> {
    const headers: Record<string, string> = { ...(result.headers ?? {}) };
    let body: Buffer | undefined;
    if (result.json !== undefined) {
      body = Buffer.from(goJsonEncode(result.json), "utf8");
      headers["Content-Type"] = "application/json;charset=utf-8";
    } else if (result.bytes !== undefined) {
      body = result.bytes;
      headers["Content-Type"] = result.contentType ?? "application/octet-stream";
    } else if (result.raw !== undefined) {
      body = Buffer.from(result.raw, "utf8");
      headers["Content-Type"] = result.contentType ?? "text/plain;charset=utf-8";
    }
    headers["Content-Length"] = String(body?.length ?? 0);
    res.writeHead(result.status, headers);
    stats.bytesSent += body?.length ?? 0;
    if (body && throttle > 0) await writeThrottled(res, body, throttle);
    else res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? "/", forge.baseUrl);
    } catch {
      return badRequest(res); // a request-target no URL parser accepts
    }
    const responded = new Promise<void>((resolve) => {
      res.on("finish", resolve);
      res.on("close", resolve);
    });
    if (!pathDecodes(url.pathname)) return badRequest(res);
    let raw: Buffer;
    try {
      raw = await readBody(req, maxBodyBytes, bodyTimeoutMs);
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      // Answer, then drop the connection: the rest of the body is never read.
      res.once("finish", () => req.socket.destroy());
      const message = err.status === 413 ? `request body over ${maxBodyBytes} bytes` : `request body not received within ${bodyTimeoutMs} ms`;
      return send(res, { status: err.status, json: { message, url: swaggerUrl(forge.baseUrl) }, headers: { Connection: "close" } }, 0);
    }
    const download = /^\/attachments\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (download && (method === "GET" || method === "HEAD")) {
      // Served without a token here; Forgejo checks the repository's visibility (public in tests).
      stats.totalRequests++;
      stats.requests["ATTACHMENT"] = (stats.requests["ATTACHMENT"] ?? 0) + 1;
      const a = store.attachmentData(download[1] as string);
      if (!a) return send(res, { status: 404, raw: "Not Found" }, 0);
      return send(
        res,
        {
          status: 200,
          bytes: a.data,
          contentType: "application/octet-stream",
          headers: { "Content-Disposition": `attachment; filename="${encodeURIComponent(a.name)}"`, "X-Content-Type-Options": "nosniff" },
        },
        0,
      );
    }
    if (!url.pathname.startsWith("/api/v1/") && url.pathname !== "/api/v1") {
      stats.totalRequests++;
      stats.requests["WEB"] = (stats.requests["WEB"] ?? 0) + 1;
      if (method === "POST") {
        const result = await handleWebPost(forge, webSessions, url, req.headers, raw, { ip: req.socket.remoteAddress ?? "", signIns });
        result.after?.(responded);
        return send(res, result, 0);
      }
      if (method !== "GET" && method !== "HEAD") return send(res, { status: 405, raw: "Method Not Allowed" }, 0);
      const asset = webAsset(url.pathname);
      if (asset) {
        res.writeHead(200, { "Content-Type": asset.contentType, "Content-Length": String(asset.body.length), "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" });
        res.end(method === "HEAD" ? undefined : asset.body);
        return;
      }
      const session = webSessions.fromRequest(req.headers);
      const viewerUser = session ? forge.store.userById(session.userId) : undefined;
      const page = renderWeb(forge, url.pathname, session && viewerUser ? { user: viewerUser, csrf: session.csrf } : null, url.search);
      return send(res, { status: page.status, raw: page.html, contentType: "text/html; charset=utf-8", headers: page.headers }, 0);
    }
    const apiPath = url.pathname.slice("/api/v1".length) || "/";
    const match = matchRoute(method, apiPath);
    const routeId = match.spec ? match.spec.id : "UNMATCHED";
    stats.totalRequests++;
    stats.requests[routeId] = (stats.requests[routeId] ?? 0) + 1;

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
      return send(res, { status, json: { message, url: swaggerUrl(forge.baseUrl) }, headers }, throttle);
    }

    let result: ApiResult;
    try {
      // Authentication is router middleware (m.Use(shared.Middlewares()), routers/api/v1/api.go:834), so it
      // runs before routing: a bad token is a 401 even on a path no route matches.
      const doer = authenticate(forge, credentialsFromRequest(url, req.headers));
      if (!match.spec) {
        // A method Forgejo registers on this path but this server does not implement answers like any
        // route this server lacks; a method Forgejo lacks too gets chi's 405.
        throw match.forgejoMethods.length > 0 && !match.forgejoMethods.includes(method as never) ? methodNotAllowed(match.forgejoMethods) : unknownRoute();
      }
      let body: unknown;
      let files: RequestContext["files"];
      const contentType = String(req.headers["content-type"] ?? "");
      if (raw.length > 0 && /^multipart\/form-data/i.test(contentType)) {
        try {
          const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
          files = [];
          for (const [field, v] of form.entries()) if (typeof v !== "string") files.push({ field, filename: v.name, data: Buffer.from(await v.arrayBuffer()) });
        } catch {
          // Go's ParseMultipartForm fails the same way; the upload handler answers it (500, as Forgejo).
          files = [];
        }
      } else if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch (err) {
          throw apiError(forge.baseUrl, 422, `[]: ${err instanceof Error ? err.message : "invalid JSON"}`);
        }
      }
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
    await send(res, result, throttle);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, "forge request crashed");
      if (!res.headersSent) {
        res.writeHead(500, { "Content-Type": "application/json;charset=utf-8" });
        res.end(goJsonEncode({ message: "internal error", url: swaggerUrl(forge.baseUrl) }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  forge.baseUrl = url;
  logger.info({ url, dataDir: options.dataDir ?? null }, "forge listening");

  const admin = createAdmin({
    forge,
    faults,
    webhooks,
    stats,
    setClock: (c) => {
      clock = c ?? Date.now;
    },
  });

  let closed = false;
  return {
    url,
    apiUrl: `${url}/api/v1`,
    port,
    admin,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await webhooks.idle();
      webhooks.close();
      store.close();
    },
  };
}
