import { createHash } from "node:crypto";
import { join } from "node:path";
import * as z from "zod";
import { type MsClock, systemMs } from "../clock.ts";
import { cliCacheDir } from "./cache-dir.ts";
import { JsonFileMap } from "./json-file-map.ts";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

/** How long a remembered login is used without asking Forgejo again (GET /user). */
export const LOGIN_CACHE_TTL_MS = 24 * 3600_000;

const EntrySchema = lazySchema(() => z.object({ login: z.string().min(1).max(255), at: z.number().int().min(0) }));

/**
 * The token's own login per (instance, token), so a cold `resume` skips `GET /user` (the trust
 * policy's "own user"). Keyed by a SHA-256 of URL and token: the file never holds the token, and
 * a new token is a new key. An entry is used for LOGIN_CACHE_TTL_MS; the store also corrects it
 * from every save's response and re-checks it when a resume had to read every comment, so a user
 * renamed meanwhile is noticed (docs/security.md, "the token's login").
 */
export class LoginCache {
  private readonly map: JsonFileMap<z.infer<typeof EntrySchema>>;
  constructor(
    dir: string | undefined,
    env: NodeJS.ProcessEnv,
    private readonly now: MsClock = systemMs,
  ) {
    this.map = new JsonFileMap(
      join(cliCacheDir(dir, env), "logins.json"),
      lazySchema(() => z.record(z.string(), builtSchema(EntrySchema))),
    );
  }

  static keyOf(url: string, token: string): string {
    return createHash("sha256").update(`checkpost-login-v1\n${url}\n${token}`, "utf8").digest("hex");
  }

  get(url: string, token: string): string | undefined {
    const e = this.map.get(LoginCache.keyOf(url, token));
    if (!e) return undefined;
    const age = this.now() - e.at;
    return age >= 0 && age < LOGIN_CACHE_TTL_MS ? e.login : undefined;
  }

  set(url: string, token: string, login: string): void {
    this.map.set(LoginCache.keyOf(url, token), { login, at: this.now() });
  }
}
