import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The bot API's access rule for one path: open to all, bearer token, or (metrics) loopback when no token is set. */
export type ApiAccess = "open" | "token" | "token-or-loopback";

/** Probes stay open; /metrics is open on loopback only while no token is configured; everything else needs a token. */
export function accessOfPath(path: string): ApiAccess {
  if (path === "/healthz" || path === "/readyz") return "open";
  if (path === "/metrics") return "token-or-loopback";
  return "token";
}

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/**
 * Checks a request against the configured API tokens (CHECKPOST_API_TOKEN, several for rotation).
 * Both sides are hashed to 32 bytes and compared with timingSafeEqual against every token, with no early
 * exit, so neither a token's content nor its length nor which one matched shows in the timing.
 * With no token configured, nothing that needs a token is allowed: saved state is never served to anyone.
 */
export class ApiAccessGuard {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  get configured(): boolean {
    return this.digests.length > 0;
  }

  allows(req: IncomingMessage, path: string): boolean {
    const access = accessOfPath(path);
    if (access === "open") return true;
    if (access === "token-or-loopback" && !this.configured) return isLoopback(req.socket.remoteAddress);
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) return false;
    const p = digest(presented);
    let ok = false;
    for (const d of this.digests) ok = timingSafeEqual(p, d) || ok;
    return ok;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235), or undefined. */
function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header ?? "");
  return m?.[1];
}

/** 127.0.0.0/8, ::1 and IPv4-mapped 127.x. A reverse proxy on the same host looks like loopback too (docs/bot.md). */
function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}
