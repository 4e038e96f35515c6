/**
 * startForge(): the HTTP server (API under /api/v1, read-only web view elsewhere) with fault injection.
 * Its parts: http-io.ts (bodies in, results out), serve-api.ts (/api/v1), serve-web.ts (the rest).
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { createAdmin, type ForgeAdmin } from "./admin.ts";
import { swaggerUrl } from "./api-error.ts";
import type { ForgeContext } from "./context.ts";
import { FaultController } from "./faults.ts";
import { goJsonEncode } from "./go-json.ts";
import { BodyError, badRequest, pathDecodes, readBody, sendResult } from "./http-io.ts";
import type { RequestStats, ServeDeps } from "./http-io.ts";
import { serveApi } from "./serve-api.ts";
import { serveAttachment, serveWeb } from "./serve-web.ts";
import { ForgeStore } from "./store-sqlite.ts";
import type { ForgeOptions } from "./types.ts";
import { WebSessions } from "./web-session.ts";
import { DEFAULT_SIGN_IN_LIMITS, SignInLimiter } from "./sign-in-limit.ts";
import { DEFAULT_ATTACHMENT_ALLOWED_TYPES } from "./upload-verify.ts";
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

/** One request: a URL and body that parse, then an attachment, the web view or the API. */
async function handleRequest(d: ServeDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { forge, maxBodyBytes, bodyTimeoutMs } = d;
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
    return sendResult(d.stats, res, { status: err.status, json: { message, url: swaggerUrl(forge.baseUrl) }, headers: { Connection: "close" } }, 0);
  }
  const download = /^\/attachments\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (download && (method === "GET" || method === "HEAD")) return serveAttachment(d, res, download[1] as string);
  if (!url.pathname.startsWith("/api/v1/") && url.pathname !== "/api/v1") return serveWeb(d, req, res, method, url, raw, responded);
  return serveApi(d, req, res, method, url, raw, responded);
}

export async function startForge(options: ForgeOptions = {}): Promise<ForgeServer> {
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? pino({ level: "silent" });
  const store = new ForgeStore(options.dataDir);
  let clock = options.clock ?? Date.now;
  const faults = new FaultController(options.faults, options.seed ?? 1);
  const stats: RequestStats = { requests: {}, requestsBy: {}, totalRequests: 0, bytesSent: 0 };
  const signIns = new SignInLimiter({ ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits }, () => clock());
  const webhooks = new WebhookDispatcher(store, logger, options.webhookTimeoutMs ?? 5000);
  const forge: ForgeContext = {
    store,
    baseUrl: "",
    logger,
    webhooks,
    nowUnix: () => Math.floor(clock() / 1000),
    maxResponseItems: options.maxResponseItems ?? 50,
    attachmentAllowedTypes: options.attachmentAllowedTypes ?? DEFAULT_ATTACHMENT_ALLOWED_TYPES,
    seams: {},
  };
  const deps: ServeDeps = {
    forge,
    logger,
    faults,
    stats,
    webSessions: new WebSessions(),
    signIns,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 60_000,
  };

  const server = http.createServer((req, res) => {
    // Forgejo's `Date` and its stored times come from one clock: with a test's clock (setClock) clients
    // learn the forge's time from its answers, as they do from Forgejo (the resume index's claims rest on it).
    res.setHeader("Date", new Date(clock()).toUTCString());
    handleRequest(deps, req, res).catch((err: unknown) => {
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
