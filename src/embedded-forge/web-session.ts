import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** Forgejo's session cookie name (setting.SessionConfig.CookieName default). */
export const SESSION_COOKIE = "i_like_gitea";
/** Forgejo's CSRF cookie for anonymous forms (the sign-in form). */
export const CSRF_COOKIE = "_csrf";

const TTL_MS = 24 * 3600_000;

export interface WebSession {
  id: string;
  userId: number;
  /** Every form of a signed-in page carries it as `_csrf`; a POST without it is refused. */
  csrf: string;
  expires: number;
}

export function parseCookies(headers: IncomingHttpHeaders): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** Equal strings, compared in constant time. */
export function sameToken(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const newToken = () => randomBytes(24).toString("base64url");

/** Web sign-in sessions of the embedded forge, in memory (a restart signs everyone out). */
export class WebSessions {
  private readonly sessions = new Map<string, WebSession>();

  create(userId: number, now = Date.now()): WebSession {
    if (this.sessions.size > 10_000) for (const [k, v] of this.sessions) if (v.expires < now) this.sessions.delete(k);
    const s = { id: newToken(), userId, csrf: newToken(), expires: now + TTL_MS };
    this.sessions.set(s.id, s);
    return s;
  }

  fromRequest(headers: IncomingHttpHeaders, now = Date.now()): WebSession | null {
    const id = parseCookies(headers).get(SESSION_COOKIE);
    const s = id ? this.sessions.get(id) : undefined;
    if (!s) return null;
    if (s.expires < now) {
      this.sessions.delete(s.id);
      return null;
    }
    return s;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }
}

/** Set-Cookie for the session (HttpOnly, SameSite=Lax, path /); maxAge 0 clears it. */
export function cookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`;
}
