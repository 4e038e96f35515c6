// The CLI's context, part of the composition root (src/app/): reads the client settings from the
// environment, picks the HTTP transport and the issue host (CHECKPOST_HOST), opens the per-machine caches (issue
// number, token login, writer fence) and builds the session store a command works on.
import { createRequire } from "node:module";
import type { DestinationStream } from "pino";
import { ClientEnvSchema, parseEnv, repoFromEnv } from "../config/env.ts";
import { ForgejoApiError, ForgejoResponseError } from "../forgejo-client/index.ts";
import { pickHost } from "../hosts/index.ts";
import type { HostDefinition } from "../ports/issue-host.ts";
import { SessionStore } from "../session-client/index.ts";
import { ConfigError, HostError, SessionChainError } from "../errors.ts";
import type { CliContext, RepoFlags } from "../cli/context.ts";
import type { CliIo } from "../cli/io.ts";
import { IssueCache } from "../cli/issue-cache.ts";
import { IndexRefCache } from "../cli/index-ref-cache.ts";
import { WriterMemory } from "../cli/writer-memory.ts";
import { lazyLogger } from "../cli/lazy-logger.ts";
import { LoginCache } from "../cli/login-cache.ts";
import { nodeHttpFetch } from "../cli/node-http-fetch.ts";

/**
 * Where CLI logs go: stderr, as JSON lines for programs, or pretty (pino-pretty in this process,
 * no worker thread) when a person watches a terminal. pino-pretty loads only then.
 */
function stderrLogDestination(): DestinationStream {
  if (process.stderr.isTTY !== true) return process.stderr as unknown as DestinationStream;
  const pretty = createRequire(import.meta.url)("pino-pretty") as (o: Record<string, unknown>) => DestinationStream;
  return pretty({ destination: 2, sync: true, colorize: true, translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" });
}

/** How the context is built beyond env and flags (the library's `SessionStore.fromEnv`, `checkpost mcp`). */
export interface CliContextOptions {
  /** The store's class (a subclass of SessionStore); default SessionStore. */
  Store?: typeof SessionStore;
  /** Start from the issue number this machine remembered (default true; the CLI forgets a stale one and retries in withStore). */
  issueCache?: boolean;
  /** A long-lived process that runs many commands (`checkpost mcp`) passes one, so each command does not open its own keep-alive sockets. */
  fetch?: typeof globalThis.fetch;
  /** The host registry to pick CHECKPOST_HOST from (default src/hosts/index.ts's; a test adds a host). */
  hosts?: ReadonlyMap<string, HostDefinition>;
}

/** Build the store from env and flags. Flags win over env. */
export function cliContext(io: CliIo, flags: RepoFlags, opts: CliContextOptions = {}): CliContext {
  const Store = opts.Store ?? SessionStore;
  const env = parseEnv(ClientEnvSchema, io.env);
  // The instance root; a URL given with /api/v1 is the same instance (the client adds /api/v1).
  const url = (flags.url ?? env.FORGEJO_URL)?.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  if (!url) throw new ConfigError("no Forgejo instance: set FORGEJO_URL (e.g. http://127.0.0.1:3001, the embedded Forgejo `npm start` runs) or pass --url");
  if (!env.FORGEJO_TOKEN) throw new ConfigError("no token: set FORGEJO_TOKEN to a Forgejo access token with the write:issue scope");
  const repo = repoFromEnv(env, flags.repo);
  const level = flags.debug ? "debug" : (env.LOG_LEVEL ?? "warn");
  const token = env.FORGEJO_TOKEN;
  const logger = lazyLogger(
    level,
    async () => (await import("../log/create-logger.ts")).createLogger({ level, destination: stderrLogDestination(), secrets: [token, env.CHECKPOST_SIGNING_KEY ?? ""] }),
    (line) => io.err(line),
  );
  // --debug: one line per request (method, path, status, ms); headers, and so the token, never.
  const fetch = flags.debug || !opts.fetch ? nodeHttpFetch(flags.debug ? (entry) => logger.debug(entry, "request") : undefined) : opts.fetch;
  const { api } = pickHost(env.CHECKPOST_HOST, opts.hosts).open({ url, token: env.FORGEJO_TOKEN, logger, fetch, timeoutMs: env.CHECKPOST_REQUEST_TIMEOUT_MS, retries: env.CHECKPOST_RETRIES });
  const cache = new IssueCache(env.CHECKPOST_CACHE_DIR, io.env);
  const cacheKey = [url, repo.owner, repo.repo, env.CHECKPOST_SESSION_TITLE, env.CHECKPOST_SESSION_LABEL].join("|");
  // A 404 names where the repository and issue came from, as the user set them.
  const issueSource = flags.issue !== undefined ? `--issue ${flags.issue}` : env.CHECKPOST_ISSUE !== undefined ? `CHECKPOST_ISSUE=${env.CHECKPOST_ISSUE}` : undefined;
  const hint404 = (e: unknown): unknown => {
    if (e instanceof HostError && e.reason === "not-found" && !e.message.includes("(repository from "))
      e.message += ` (repository from ${repo.source}${issueSource ? `, issue from ${issueSource}` : ""}; instance ${url})`;
    return e;
  };
  // A 404 or an answer of the wrong shape may mean FORGEJO_URL is not a Forgejo at all (a web page, another
  // service): ask /api/v1/version once, and say so instead of "repository does not exist".
  const explain = async (e: unknown): Promise<unknown> => {
    if (!((e instanceof HostError && e.reason === "not-found") || e instanceof ForgejoResponseError)) return hint404(e);
    let why: string | null = null;
    try {
      const version = await api.version();
      if (!/^\d+\.\d+/.test(version)) why = `it answers /api/v1/version with "${version.slice(0, 40)}"`;
    } catch (v) {
      why =
        v instanceof ForgejoApiError
          ? `GET /api/v1/version answered ${v.status}`
          : v instanceof ForgejoResponseError
            ? "GET /api/v1/version is not a Forgejo answer"
            : v instanceof Error
              ? v.message
              : String(v);
    }
    if (why === null) return hint404(e);
    return new ConfigError(`${url} does not answer as a Forgejo API (${why}): set FORGEJO_URL to the instance's base URL, e.g. https://forgejo.example.org (checkpost adds /api/v1)`);
  };
  const explicit = flags.issue ?? env.CHECKPOST_ISSUE;
  // The token's login, remembered on this machine: a cold resume then skips GET /user.
  const logins = new LoginCache(env.CHECKPOST_CACHE_DIR, io.env);
  const login = logins.get(url, token);
  // Where each issue's resume index comment is: a cold resume then skips the read of the issue.
  const indexRefs = new IndexRefCache(env.CHECKPOST_CACHE_DIR, io.env).forRepo([url, repo.owner, repo.repo].join("|"));
  const make = (issue: number | undefined) =>
    new Store({
      api,
      repo: { owner: repo.owner, repo: repo.repo },
      title: env.CHECKPOST_SESSION_TITLE,
      label: env.CHECKPOST_SESSION_LABEL,
      trustedAuthors: env.CHECKPOST_TRUSTED_AUTHORS,
      maxCheckpointBytes: env.CHECKPOST_MAX_CHECKPOINT_BYTES,
      legacyWriters: env.CHECKPOST_LEGACY_WRITERS,
      // `resume`'s liveness under the thresholds the bot's dashboard and `status` use.
      liveness: { minStaleMs: env.CHECKPOST_MIN_STALE_MS, ...(env.CHECKPOST_STALE_AFTER_MS ? { staleAfterMs: env.CHECKPOST_STALE_AFTER_MS } : {}) },
      logger,
      ...(login !== undefined ? { selfLogin: login, selfLoginRemembered: true } : {}),
      onSelfLogin: (l) => {
        try {
          logins.set(url, token, l);
        } catch (e) {
          logger.debug({ err: e }, "could not remember the token's login; the next call asks again");
        }
      },
      ...(issue !== undefined ? { issue } : {}),
      indexRefs,
      ...(env.CHECKPOST_SIGNING_KEY ? { signingKey: env.CHECKPOST_SIGNING_KEY } : {}),
    });
  const cached = explicit === undefined && opts.issueCache !== false ? cache.get(cacheKey) : undefined;
  const store = make(explicit ?? cached);
  return {
    env,
    store,
    api,
    logger,
    memoryKey: [url, repo.owner, repo.repo].join("|"),
    writers: new WriterMemory(env.CHECKPOST_CACHE_DIR, io.env),
    async withStore(fn) {
      try {
        const result = await fn(store);
        if (explicit === undefined) cache.set(cacheKey, await store.issueNumber());
        return result;
      } catch (e) {
        // Gone (404), or closed with no successor to follow (a person closed it): the cache was only a hint.
        if (cached === undefined || !((e instanceof HostError && e.reason === "not-found") || e instanceof SessionChainError)) throw await explain(e);
        logger.debug({ cached }, "cached session issue is gone or closed without a successor; locating it again");
        cache.set(cacheKey, undefined);
        const fresh = make(undefined);
        try {
          const result = await fn(fresh);
          cache.set(cacheKey, await fresh.issueNumber());
          return result;
        } catch (e2) {
          throw await explain(e2);
        }
      }
    },
  };
}
