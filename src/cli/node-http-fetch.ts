import { request as httpRequest, Agent as HttpAgent } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Agent as HttpsAgent } from "node:https";

/** One finished request, for `--debug`: never the headers (they carry the token). */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** Content types whose bodies stay bytes (archive attachments). */
const BINARY = /^application\/(octet-stream|gzip|x-gzip)\b/i;

/**
 * A text body this large is decoded as it arrives instead of kept as chunks and then concatenated:
 * a page of 2,000 comments is ~3.5 MB, which the bot's first read held twice in native memory per
 * reader (heaptrack: 18 MiB of Buffers at 50,000 comments) and glibc then kept (docs/benchmarks.md,
 * "Issue 22, fifth session"). Smaller bodies, every one of the CLI's, take the one-copy path as before.
 */
export const DECODE_AS_READ_BYTES = 256 * 1024;

/** The part of a fetch Response that @octokit/request reads. */
class NodeResponse {
  readonly ok: boolean;
  readonly statusText: string;
  readonly headers: Headers;
  constructor(
    readonly status: number,
    readonly url: string,
    statusText: string | undefined,
    rawHeaders: IncomingHttpHeaders,
    /** The body: bytes, or the text already decoded (a large text body, see DECODE_AS_READ_BYTES). */
    private readonly payload: Buffer | string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.statusText = statusText ?? "";
    this.headers = new Headers(rawHeaders);
  }
  /**
   * The body as text, not a ReadableStream: ForgejoClient reads bodies itself (parseSuccessResponseBody
   * false) and takes a string as is, where a stream would need the global Response, and so undici.
   */
  get body(): string | Buffer {
    // Binary downloads (archive attachments) stay bytes.
    if (typeof this.payload !== "string" && BINARY.test(this.headers.get("content-type") ?? "")) return this.payload;
    return this.textNow();
  }
  private textNow(): string {
    return typeof this.payload === "string" ? this.payload : this.payload.toString("utf8");
  }
  async text(): Promise<string> {
    return this.textNow();
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.textNow());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = typeof this.payload === "string" ? Buffer.from(this.payload, "utf8") : this.payload;
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
}

/** Read-only header map with the `get` and iteration that @octokit/request uses; names are lower case. */
class Headers {
  private readonly map = new Map<string, string>();
  constructor(raw: IncomingHttpHeaders) {
    for (const [k, v] of Object.entries(raw)) if (v !== undefined) this.map.set(k.toLowerCase(), Array.isArray(v) ? v.join(", ") : v);
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/**
 * A `fetch` for the CLI built on node:http. Node 20's global fetch loads undici on first use, which
 * costs a short-lived `checkpost save` about 0.3 s of start-up and 40 MiB of resident memory (measured:
 * `node -e 'fetch(…)'` 84 MiB vs `http.get` 44 MiB); this does the CLI's one or two JSON requests
 * without it. Keep-alive sockets are unref'd by the agent, so they never hold the process open.
 */
export function nodeHttpFetch(onRequest?: (entry: RequestLogEntry) => void): typeof globalThis.fetch {
  const httpAgent = new HttpAgent({ keepAlive: true });
  // node:https (and TLS under it) loads only for an https:// Forgejo: a loopback or in-cluster
  // http:// save does not pay for compiling it (process.getBuiltinModule: Node ≥ 20.16).
  let https: { module: typeof import("node:https"); agent: HttpsAgent } | undefined;
  const tls = () => {
    if (!https) {
      const module = process.getBuiltinModule("node:https");
      https = { module, agent: new module.Agent({ keepAlive: true }) };
    }
    return https;
  };
  const impl = (input: string | URL | { url: string }, init: RequestInit = {}): Promise<NodeResponse> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const method = (init.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = String(v);
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === "string" ? Buffer.from(init.body) : Buffer.from(init.body as ArrayBuffer);
    if (body) headers["content-length"] = String(body.byteLength);
    const signal = init.signal ?? undefined;
    const secure = url.protocol === "https:" ? tls() : undefined;
    // Only --debug reads the clock: the `performance` global loads perf_hooks (~1 ms of every save).
    const started = onRequest ? performance.now() : 0;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const req = secure ? secure.module.request(url, { method, headers, agent: secure.agent }) : httpRequest(url, { method, headers, agent: httpAgent });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      req.on("error", (e) => {
        done();
        // Like fetch: a network failure is a TypeError whose cause says why (the client reports it).
        reject(e.name === "AbortError" || e.name === "TimeoutError" ? e : Object.assign(new TypeError("fetch failed"), { cause: e }));
      });
      req.on("response", (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let text: { decoder: InstanceType<typeof TextDecoder>; pieces: string[] } | undefined;
        const binary = BINARY.test(String(res.headers["content-type"] ?? ""));
        res.on("data", (c: Buffer) => {
          if (text) {
            text.pieces.push(text.decoder.decode(c, { stream: true }));
            return;
          }
          chunks.push(c);
          size += c.length;
          if (binary || size < DECODE_AS_READ_BYTES) return;
          // ignoreBOM: keep a leading BOM, as Buffer#toString does; `stream` carries a character split across chunks.
          const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
          text = { decoder, pieces: chunks.splice(0).map((x) => decoder.decode(x, { stream: true })) };
        });
        res.on("error", (e) => {
          done();
          reject(Object.assign(new TypeError("fetch failed"), { cause: e }));
        });
        res.on("end", () => {
          done();
          const status = res.statusCode ?? 0;
          onRequest?.({ method, path: url.pathname + url.search, status, ms: Math.round(performance.now() - started) });
          const payload = text ? text.pieces.join("") + text.decoder.decode() : Buffer.concat(chunks);
          resolve(new NodeResponse(status, url.toString(), res.statusMessage, res.headers, payload));
        });
      });
      req.end(body);
    });
  };
  return impl as unknown as typeof globalThis.fetch;
}
