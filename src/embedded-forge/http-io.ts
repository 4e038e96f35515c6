/** HTTP in and out for startForge: read a request body within bounds, answer an ApiResult, Go's bare 400. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { ForgeContext } from "./context.ts";
import type { FaultController } from "./faults.ts";
import { goJsonEncode } from "./go-json.ts";
import type { SignInLimiter } from "./sign-in-limit.ts";
import { writeThrottled } from "./throttle.ts";
import type { ApiResult, ForgeStats } from "./types.ts";
import type { WebSessions } from "./web-session.ts";

/** Requests counted per route (ATTACHMENT, WEB, a route id), API requests per requester, and bytes sent; the admin API reads and resets them. */
export type RequestStats = Pick<ForgeStats, "requests" | "requestsBy" | "totalRequests" | "bytesSent">;

/** What one server's request handling holds (made by startForge). */
export interface ServeDeps {
  forge: ForgeContext;
  logger: Logger;
  faults: FaultController;
  stats: RequestStats;
  webSessions: WebSessions;
  signIns: SignInLimiter;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/** Why a request body was not read: too large (413) or too slow (408). */
export class BodyError extends Error {
  constructor(readonly status: 408 | 413) {
    super(status === 413 ? "request body too large" : "request body timed out");
  }
}

/**
 * The whole request body, or a BodyError: over `maxBytes` (announced by Content-Length or counted as it
 * streams) or not complete within `timeoutMs`. Reading stops at once; the caller answers and closes.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
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
export function badRequest(res: ServerResponse): void {
  const body = "400 Bad Request";
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.length), Connection: "close" });
  res.end(body);
}

/** True when every %-escape of the path decodes (url.ParseRequestURI in Go rejects the request otherwise). */
export function pathDecodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** Write `result` (JSON as Go encodes it, bytes or text), counting the bytes; `throttle` > 0 limits the rate. */
export async function sendResult(stats: RequestStats, res: ServerResponse, result: ApiResult, throttle: number): Promise<void> {
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
