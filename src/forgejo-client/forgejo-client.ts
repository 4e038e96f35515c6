import { Octokit } from "@octokit/core";
import { RequestError } from "@octokit/request-error";
import pRetry, { AbortError } from "p-retry";
import type { z } from "zod";
import type { Logger } from "pino";
import { type MsClock, systemMs } from "../clock.ts";
import { ForgejoApiError, ForgejoResponseError } from "./forgejo-error.ts";
import { forgejoError, networkError } from "./forgejo-error.ts";
import type { RequestTarget } from "./forgejo-error.ts";
import { redactUrl } from "../util/redact-url.ts";

export interface ForgejoClientOptions {
  /** FORGEJO_URL: the instance root, e.g. http://127.0.0.1:3000 (the client adds /api/v1). */
  url: string;
  /** Sent as `Authorization: token …`. */
  token?: string;
  /** Injected fetch (tests, instrumentation). */
  fetch?: typeof globalThis.fetch;
  logger?: Pick<Logger, "debug" | "warn">;
  /** Retries after the first attempt, for network errors, 5xx and 429. Default 4. */
  retries?: number;
  /** First backoff delay; doubles each retry, with jitter. Default 250 ms. */
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Longest Retry-After honoured; longer ones fail fast. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout. Default 30 s. */
  timeoutMs?: number;
  random?: () => number;
  /** Our clock, against which the server's Date and Retry-After are read. Default: the system clock. */
  now?: MsClock;
}

export interface CallOptions<S extends z.ZodType> {
  params?: Record<string, string | number | boolean | undefined>;
  /** JSON body. */
  data?: unknown;
  /** Request headers beyond the defaults (a multipart body's content-type). */
  headers?: Record<string, string>;
  schema: S;
  what?: string;
  /** false: one attempt only (the caller runs its own loop, e.g. exactly-once saves). */
  retry?: boolean;
}

export interface CallResult<T> {
  data: T;
  status: number;
  headers: Record<string, string | undefined>;
}

/** True when a request may have been applied although no success came back. */
export function isOutcomeUnknown(e: unknown): boolean {
  return e instanceof ForgejoApiError && (e.status === 0 || e.status >= 500);
}

/** Network errors, 5xx and 429 are worth another attempt; other 4xx are not. */
export function isRetryable(e: unknown): boolean {
  return e instanceof ForgejoApiError && (e.status === 0 || e.status >= 500 || e.status === 429);
}

/**
 * A thin Forgejo REST client: @octokit/core with the token, p-retry for
 * transient failures (honouring Retry-After), zod at the boundary, and errors
 * that say what to fix.
 */
export class ForgejoClient {
  readonly apiUrl: string;
  /** Requests sent (every attempt counts), for benchmarks and the save-costs-one-request check. */
  requestCount = 0;
  /** Server clock minus ours, from the last `Date` header (ms); used to build `since` filters. */
  serverClockOffsetMs = 0;
  private readonly octokit: Octokit;
  private readonly opts: Required<Omit<ForgejoClientOptions, "token" | "fetch" | "logger">> & Pick<ForgejoClientOptions, "logger">;

  constructor(options: ForgejoClientOptions) {
    // userinfo in FORGEJO_URL is never sent (fetch refuses it, and the token authenticates) nor shown in
    // any message: the client works on the URL without it.
    const url = stripUserinfo(options.url);
    if (url !== options.url) options.logger?.warn({ url: redactUrl(options.url) }, "FORGEJO_URL carries user:password@; it is ignored (FORGEJO_TOKEN authenticates)");
    // A URL given with /api/v1 already (a common slip) is the same instance: never /api/v1/api/v1.
    this.apiUrl = `${url.replace(/\/+$/, "").replace(/\/api\/v1$/, "")}/api/v1`;
    this.opts = {
      url,
      logger: options.logger,
      retries: options.retries ?? 4,
      minRetryDelayMs: options.minRetryDelayMs ?? 250,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 30_000,
      random: options.random ?? Math.random,
      now: options.now ?? systemMs,
    };
    this.octokit = new Octokit({
      baseUrl: this.apiUrl,
      ...(options.token ? { auth: options.token } : {}),
      userAgent: "checkpost",
      request: options.fetch ? { fetch: options.fetch } : {},
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
  }

  /** One endpoint call: `route` like "GET /repos/{owner}/{repo}/issues/{index}". */
  async call<S extends z.ZodType>(route: string, options: CallOptions<S>): Promise<CallResult<z.output<S>>> {
    const [method = "GET"] = route.split(" ");
    const target: RequestTarget = { method, url: route, ...(options.what ? { what: options.what } : {}) };
    const attempt = () => this.once(route, target, options);
    if (options.retry === false) return attempt();
    return this.withRetry(attempt, route);
  }

  /**
   * Run `fn` with the client's retry policy: network errors, 5xx and 429 are
   * retried with jittered exponential backoff, or after Retry-After when the
   * server sent one; anything else fails at once. `fn` gets the attempt number.
   */
  async withRetry<T>(fn: (attemptNumber: number) => Promise<T>, label = "request"): Promise<T> {
    // The first attempt runs outside p-retry, which reads performance.now() on entry: on Node 20 that
    // loads perf_hooks (about ten internal modules), a cost every one-shot CLI call paid for a retry it
    // almost never makes (docs/benchmarks.md, "CLI start-up"). Same attempts and delays as before.
    const failures: (number | string)[] = [];
    let waited = 0;
    const note = (e: unknown) => failures.push((e as ForgejoApiError).status ?? (e as NodeJS.ErrnoException).code ?? "error");
    try {
      return await fn(1);
    } catch (e) {
      if (!isRetryable(e) || this.opts.retries <= 0) throw e;
      note(e);
      waited += await this.beforeRetry(e as Error, 1, label);
    }
    // One warn line per retried request, once it is settled, with what happened: not one per attempt.
    const summary = (ok: boolean) =>
      this.opts.logger?.warn(
        { label, attempts: failures.length + (ok ? 1 : 0), failures, waitedMs: waited },
        ok ? `Forgejo request succeeded after ${failures.length} failed attempt(s)` : `Forgejo request failed ${failures.length} times; giving up`,
      );
    return pRetry(
      async (n) => {
        try {
          return await fn(n + 1);
        } catch (e) {
          // AbortError stops p-retry at once; keep our typed error as its cause.
          if (!isRetryable(e)) throw new AbortError(e as Error);
          throw e;
        }
      },
      {
        retries: this.opts.retries - 1,
        minTimeout: 0,
        maxTimeout: 0,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          note(error);
          if (retriesLeft > 0) waited += await this.beforeRetry(error, attemptNumber + 1, label);
        },
      },
    ).then(
      (r) => {
        summary(true);
        return r;
      },
      (e: unknown) => {
        summary(false);
        throw e instanceof AbortError && e.cause instanceof Error ? e.cause : e;
      },
    );
  }

  /** Wait before the next attempt (throws `error` when its Retry-After is too long to wait); returns the wait. */
  private async beforeRetry(error: Error, attemptNumber: number, label: string): Promise<number> {
    const wait = this.retryDelay(error, attemptNumber);
    // Per attempt at debug only: the request's one warn line comes when it settles (withRetry).
    this.opts.logger?.debug({ label, status: (error as ForgejoApiError).status, attemptNumber, waitMs: wait }, "Forgejo request failed; retrying");
    await new Promise((r) => setTimeout(r, wait));
    return wait;
  }

  private retryDelay(error: Error, attemptNumber: number): number {
    const retryAfter = error instanceof ForgejoApiError && error.status === 429 ? retryAfterMs(error, this.opts.now()) : undefined;
    if (retryAfter !== undefined) {
      if (retryAfter > this.opts.maxRetryAfterMs) throw error; // stop: waiting that long is the caller's call
      return retryAfter;
    }
    const base = Math.min(this.opts.maxRetryDelayMs, this.opts.minRetryDelayMs * 2 ** (attemptNumber - 1));
    return Math.round(base * (0.5 + this.opts.random() / 2));
  }

  private async once<S extends z.ZodType>(route: string, target: RequestTarget, options: CallOptions<S>): Promise<CallResult<z.output<S>>> {
    this.requestCount++;
    const params: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(options.params ?? {})) if (v !== undefined) params[k] = v;
    if (options.data !== undefined) params["data"] = options.data;
    if (options.headers !== undefined) params["headers"] = options.headers;
    let response: { status: number; headers: Record<string, unknown>; data: unknown; url: string };
    let data: unknown;
    try {
      // parseSuccessResponseBody:false: octokit hands over the body stream and we parse it
      // ourselves. Its parser (json-with-bigint) recurses per character of a string and
      // overflows the stack on a ~7.9 MiB string on Node 20; it then returns the raw text,
      // so one large comment by anyone made every full read of the issue fail.
      response = await this.octokit.request(route, { ...params, request: { signal: AbortSignal.timeout(this.opts.timeoutMs), parseSuccessResponseBody: false } });
      data = await responseData(response.data, response.headers);
    } catch (e) {
      throw this.translate(e, target);
    }
    const headers = stringHeaders(response.headers);
    this.noteServerClock(headers["date"]);
    const parsed = options.schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ForgejoResponseError(`Forgejo's answer to ${route} does not have the expected shape (${issue?.path.join(".") || "body"}: ${issue?.message}). Is FORGEJO_URL a Forgejo/Gitea instance?`);
    }
    return { data: parsed.data, status: response.status, headers };
  }

  private translate(e: unknown, target: RequestTarget): Error {
    if (e instanceof RequestError) {
      const url = e.request?.url ?? target.url;
      const t = { ...target, url };
      if (!e.response) return networkError(t, e.cause ?? e);
      const headers = stringHeaders(e.response.headers as Record<string, unknown>);
      this.noteServerClock(headers["date"]);
      return forgejoError(e.status, e.response.data, t, e, headers["retry-after"]);
    }
    // Aborted (timeout) or a body cut off mid-read: no answer we can trust.
    if (e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError" || e.name === "TypeError")) return networkError(target, e);
    return e instanceof Error ? e : new Error(String(e));
  }

  private noteServerClock(date: string | undefined): void {
    if (!date) return;
    const t = Date.parse(date);
    if (!Number.isNaN(t)) this.serverClockOffsetMs = t - this.opts.now();
  }
}

/**
 * A success body as JSON (V8's `JSON.parse` is iterative for strings: any size
 * Forgejo sends is fine), text for other types, undefined when empty (204).
 */
export async function responseData(body: unknown, headers: Record<string, unknown>): Promise<unknown> {
  if (body === null || body === undefined || body === "") return undefined;
  const type = String(headers["content-type"] ?? "").toLowerCase();
  // Binary downloads (attachments) as bytes: decoding them as text would corrupt them.
  if (/^application\/(octet-stream|gzip|x-gzip)\b/.test(type) && typeof body !== "string") return Buffer.isBuffer(body) ? body : Buffer.from(await new Response(body as ReadableStream).arrayBuffer());
  const text = typeof body === "string" ? body : await new Response(body as ReadableStream).text();
  if (!/^application\/([a-z.+-]+\+)?json\b/.test(type)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // the schema check then says the answer does not have the expected shape
  }
}

function stringHeaders(h: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v === undefined ? undefined : String(v);
  return out;
}

/** Retry-After as seconds or an HTTP date, in ms. */
function retryAfterMs(e: ForgejoApiError, nowMs: number): number | undefined {
  const v = e.retryAfter;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function stripUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1");
}
