// GitHub's REST behaviour over the embedded forge's data (issue 31, item 2): so that the bot's own suites
// (tracker, controls, chain), written against the embedded Forgejo, can run with the bot behind the
// GitHub-behaviour adapter (GitHubHost) instead of the Forgejo one. Two pieces:
// - `fetch`: GitHub's routes and shapes, translated to the forge's API and back. Lists are read whole
//   from the forge and answered in GitHub's pages (githubPage: per_page ≤ 100, `Link`); comment lists
//   filter on `since` only (no upper bound); labels go by name; hooks are "web" hooks; every answer has
//   GitHub's rate-limit headers (rateLimitHeaders); there is no attachment API (404).
// - a relay: the forge's webhook deliveries reach their target with GitHub's headers only (X-GitHub-Event,
//   X-GitHub-Delivery, X-Hub-Signature-256; X-Forgejo-*, X-Gitea-* and the rest stripped). A hook made
//   through `fetch` is made on the forge towards the relay; hookUrl(target) gives such a URL to a test that
//   makes its hook on the forge directly.
// The people and agents of a test may keep using the forge's own API: they stand for other clients.
// What this proves is that the BOT works through GitHub's behaviour. Test code only.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { HostDefinition } from "../../../src/ports/issue-host.ts";
import { GITHUB_CAPABILITIES, GitHubHost, readGitHubDelivery, verifyGitHubDelivery } from "./github-host.ts";
import { githubPage, rateLimitHeaders } from "./github-rest.ts";

const ORIGIN = "https://api.github.test";
const RATE_LIMIT = 5000;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" ? (v as Json) : {});

export interface GitHubOverForgeOptions {
  /** The forge's root URL (http://127.0.0.1:port). */
  forgeUrl: string;
  /** The bot's clock (ms), which GitHubHost compares with the host's Date header. */
  now: () => number;
  /**
   * A site admin's token on the forge: GitHub answers a collaborator's permission to any collaborator
   * who asks, Forgejo only to repository admins, so the query is put to the forge with this token.
   */
  oracleToken: string;
}

export interface GitHubOverForge {
  /** GitHub's REST root this surface answers on (Link headers name it). */
  readonly apiUrl: string;
  /** GitHub's REST API as a fetch, over the forge. */
  readonly fetch: typeof fetch;
  /** A webhook URL on the forge that reaches `target` with GitHub's headers only. */
  hookUrl(target: string): string;
  /** Deliveries relayed so far: their event and the headers they carried onward. */
  readonly relayed: { event: string; headers: Record<string, string> }[];
  /** Requests answered, each as "METHOD /path?query" in GitHub's routes. */
  readonly requests: string[];
  /** The host registry entry "github": GitHubHost over this surface. */
  readonly host: HostDefinition;
  close(): Promise<void>;
}

/** Start the relay and answer GitHub's REST over the forge at `forgeUrl`. */
export async function githubOverForge(o: GitHubOverForgeOptions): Promise<GitHubOverForge> {
  const relayed: GitHubOverForge["relayed"] = [];
  const requests: string[] = [];
  const relay = createServer((req, res) => {
    void relayDelivery(req, relayed).then(
      (r) => res.writeHead(r.status, { "content-type": "text/plain" }).end(r.body),
      (e: unknown) => res.writeHead(502, { "content-type": "text/plain" }).end(String(e)),
    );
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  const hookUrl = (target: string) => `${relayUrl}/to/${encodeURIComponent(target)}`;
  const targetOf = (url: string) => (url.startsWith(`${relayUrl}/to/`) ? decodeURIComponent(url.slice(relayUrl.length + 4)) : url);
  const spent = new Map<string, number>();

  // `forgeFetch` carries the surface's own requests to the forge: a bot's HostSettings.fetch when it has one (tests record it).
  const surface =
    (forgeFetch: typeof fetch) =>
    async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
      const method = (init?.method ?? "GET").toUpperCase();
      requests.push(`${method} ${url.pathname}${url.search}`);
      const token = (new Headers(init?.headers).get("authorization") ?? "").replace(/^(token|Bearer) /, "");
      const used = (spent.get(token) ?? 0) + 1;
      spent.set(token, used);
      // The host's clock is the forge's (tests set it): its Date header is passed on, as GitHub's own.
      let hostMs = o.now();
      const answer = (status: number, body: unknown, extra: Record<string, string> = {}) =>
        new Response(status === 204 ? null : JSON.stringify(body), {
          status,
          headers: { "content-type": "application/json; charset=utf-8", ...rateLimitHeaders(RATE_LIMIT, used, hostMs), ...extra },
        });
      const input_ = init?.body ? obj(JSON.parse(String(init.body))) : {};
      const forge = async (m: string, path: string, body?: unknown, as = token): Promise<{ status: number; json: unknown; headers: Headers }> => {
        const r = await forgeFetch(`${o.forgeUrl}/api/v1${path}`, {
          method: m,
          headers: { authorization: `token ${as}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const date = Date.parse(r.headers.get("date") ?? "");
        if (!Number.isNaN(date)) hostMs = date;
        const text = await r.text();
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = { message: text };
        }
        return { status: r.status, json, headers: r.headers };
      };
      // A forge refusal as GitHub says one: its status, a message, and retry-after when the forge gave one.
      const refused = (r: { status: number; json: unknown; headers: Headers }) => {
        const after = r.headers.get("retry-after");
        return answer(r.status, { message: String(obj(r.json).message ?? "Not Found"), documentation_url: "https://docs.github.com/rest" }, after ? { "retry-after": after } : {});
      };
      /** Every item of a forge list, page after page (the forge's pages are at most 50). */
      const forgeAll = async (path: string): Promise<{ items: unknown[] } | { failed: Response }> => {
        const items: unknown[] = [];
        for (let page = 1; ; page++) {
          const r = await forge("GET", `${path}${path.includes("?") ? "&" : "?"}limit=50&page=${page}`);
          if (r.status !== 200) return { failed: refused(r) };
          const list = Array.isArray(r.json) ? r.json : [];
          items.push(...list);
          const total = Number(r.headers.get("x-total-count") ?? Number.NaN);
          if (list.length === 0 || (Number.isFinite(total) ? items.length >= total : list.length < 50)) return { items };
        }
      };
      const paged = (all: unknown[]) => {
        const p = githubPage(url, all, ORIGIN);
        return answer(200, p.body, p.headers);
      };
      const one = async (m: string, path: string, map: (v: Json) => unknown, body?: unknown, okStatus?: number) => {
        const r = await forge(m, path, body);
        if (r.status >= 300) return refused(r);
        return answer(okStatus ?? r.status, r.status === 204 ? null : map(obj(r.json)));
      };

      const p = url.pathname;
      if (p === "/meta") return answer(200, { verifiable_password_authentication: false });
      if (p === "/user" && method === "GET") return one("GET", "/user", toUser);
      const m = p.match(/^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/);
      if (!m) return answer(404, { message: "Not Found" });
      const base = `/repos/${m[1]}/${m[2]}`;
      const rest = m[3] ?? "";
      const q = url.searchParams;
      const issueUrl = (n: number | string) => `${ORIGIN}${base}/issues/${n}`;
      const mapComment = (c: Json) => toComment(c, issueUrl);

      if (/\/assets(\/|$)/.test(rest)) return answer(404, { message: "Not Found" }); // GitHub has no attachment API
      if (rest === "" && method === "GET") return one("GET", base, (r) => r);
      if (rest === "/issues" && method === "GET") {
        const want = new URLSearchParams({ state: q.get("state") ?? "open", ...(q.get("labels") ? { labels: q.get("labels") ?? "" } : {}) });
        const all = await forgeAll(`${base}/issues?${want}`);
        if ("failed" in all) return all.failed;
        return paged(all.items.map((i) => toIssue(obj(i))).sort((a, b) => Number(b.number) - Number(a.number)));
      }
      if (rest === "/issues" && method === "POST") {
        // GitHub takes label names (and creates the ones the repository lacks); the forge takes ids.
        const names = Array.isArray(input_.labels) ? input_.labels.map(String) : [];
        const ids: number[] = [];
        if (names.length) {
          const all = await forgeAll(`${base}/labels`);
          if ("failed" in all) return all.failed;
          for (const name of names) {
            let label = all.items.map(obj).find((l) => l.name === name);
            if (!label) {
              const made = await forge("POST", `${base}/labels`, { name, color: "#ededed" });
              if (made.status >= 300) return refused(made);
              label = obj(made.json);
            }
            ids.push(Number(label.id));
          }
        }
        return one("POST", `${base}/issues`, toIssue, { ...input_, labels: ids });
      }
      const issue = rest.match(/^\/issues\/(\d+)$/)?.[1];
      if (issue && (method === "GET" || method === "PATCH")) return one(method, `${base}/issues/${issue}`, toIssue, method === "PATCH" ? input_ : undefined);
      const commentsOf = rest.match(/^\/issues\/(\d+)\/comments$/)?.[1];
      if (commentsOf && method === "GET") {
        // GitHub filters on `since` only: no `before` reaches the forge.
        const since = q.get("since");
        const r = await forge("GET", `${base}/issues/${commentsOf}/comments${since ? `?since=${encodeURIComponent(since)}` : ""}`);
        if (r.status !== 200) return refused(r);
        return paged((Array.isArray(r.json) ? r.json : []).map((c) => mapComment(obj(c))));
      }
      if (commentsOf && method === "POST") return one("POST", `${base}/issues/${commentsOf}/comments`, mapComment, { body: input_.body });
      const comment = rest.match(/^\/issues\/comments\/(\d+)$/)?.[1];
      if (comment && method === "GET") return one("GET", `${base}/issues/comments/${comment}`, mapComment);
      if (comment && method === "PATCH") return one("PATCH", `${base}/issues/comments/${comment}`, mapComment, { body: input_.body });
      if (comment && method === "DELETE") return one("DELETE", `${base}/issues/comments/${comment}`, () => null, undefined, 204);
      if (rest === "/labels" && method === "GET") {
        const all = await forgeAll(`${base}/labels`);
        return "failed" in all ? all.failed : paged(all.items.map((l) => toLabel(obj(l))));
      }
      if (rest === "/labels" && method === "POST") {
        const color = String(input_.color ?? "");
        if (!/^[0-9a-fA-F]{6}$/.test(color)) return answer(422, { message: "Validation Failed" }); // no "#" on GitHub
        return one("POST", `${base}/labels`, toLabel, { ...input_, color: `#${color}` });
      }
      const labelsOf = rest.match(/^\/issues\/(\d+)\/labels$/)?.[1];
      if (labelsOf && method === "POST") {
        const r = await forge("POST", `${base}/issues/${labelsOf}/labels`, { labels: input_.labels });
        if (r.status >= 300) return refused(r);
        return answer(
          200,
          (Array.isArray(r.json) ? r.json : []).map((l) => toLabel(obj(l))),
        );
      }
      const toHook = (h: Json) => {
        const config = obj(h.config);
        return {
          id: h.id,
          type: "Repository",
          name: "web",
          active: h.active,
          events: h.events,
          config: { url: targetOf(String(config.url ?? "")), content_type: String(config.content_type ?? "form"), insecure_ssl: "0" },
        };
      };
      if (rest === "/hooks" && method === "GET") {
        const all = await forgeAll(`${base}/hooks`);
        return "failed" in all ? all.failed : paged(all.items.map((h) => toHook(obj(h))));
      }
      if (rest === "/hooks" && method === "POST") {
        if (input_.name !== "web") return answer(422, { message: "Validation Failed" });
        const config = obj(input_.config);
        return one("POST", `${base}/hooks`, toHook, { type: "forgejo", active: input_.active !== false, events: input_.events, config: { ...config, url: hookUrl(String(config.url ?? "")) } }, 201);
      }
      const hook = rest.match(/^\/hooks\/(\d+)$/)?.[1];
      if (hook && method === "DELETE") return one("DELETE", `${base}/hooks/${hook}`, () => null, undefined, 204);
      if (rest === "/collaborators" && method === "GET") {
        const all = await forgeAll(`${base}/collaborators`);
        return "failed" in all ? all.failed : paged(all.items.map((u) => toUser(obj(u))));
      }
      const permissionOf = rest.match(/^\/collaborators\/([^/]+)\/permission$/)?.[1];
      if (permissionOf && method === "GET") {
        const r = await forge("GET", `${base}/collaborators/${permissionOf}/permission`, undefined, o.oracleToken);
        if (r.status !== 200) return refused(r);
        const said = String(obj(r.json).permission ?? "none");
        // GitHub's permission is admin, write, read or none (an owner is an admin).
        const permission = said === "owner" || said === "admin" ? "admin" : said === "write" ? "write" : said === "read" ? "read" : "none";
        return answer(200, { permission, role_name: permission, user: toUser(obj(obj(r.json).user)) });
      }
      return answer(404, { message: "Not Found" });
    };

  const ghFetch = surface(fetch);
  const host: HostDefinition = {
    name: "github",
    capabilities: GITHUB_CAPABILITIES,
    verifyDelivery: verifyGitHubDelivery,
    open: (s) => ({
      api: new GitHubHost({
        apiUrl: ORIGIN,
        token: s.token ?? "",
        fetch: s.fetch ? surface(s.fetch) : ghFetch,
        now: o.now,
        ...(s.retries !== undefined ? { retries: s.retries } : {}),
        wait: shortWait,
      }),
      apiUrl: ORIGIN,
      readDelivery: readGitHubDelivery,
      verifyDelivery: verifyGitHubDelivery,
    }),
  };

  return {
    apiUrl: ORIGIN,
    fetch: ghFetch,
    hookUrl,
    relayed,
    requests,
    host,
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

/** Retry waits in tests: a retry-after or backoff is honoured, but capped at 50 ms so suites stay fast. */
const shortWait = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 50)));

/** GitHub sends these on a delivery; everything else the forge adds (X-Forgejo-*, X-Gitea-*, …) is dropped. */
const GITHUB_DELIVERY_HEADERS = ["x-github-event", "x-github-delivery", "x-github-hook-id", "x-hub-signature-256"] as const;

/** Forward one delivery from the forge to its target with GitHub's headers only; the target's answer goes back. */
async function relayDelivery(req: IncomingMessage, relayed: GitHubOverForge["relayed"]): Promise<{ status: number; body: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const target = decodeURIComponent((req.url ?? "").replace(/^\/to\//, ""));
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "GitHub-Hookshot/checkpost-over-forge" };
  for (const h of GITHUB_DELIVERY_HEADERS) {
    const v = req.headers[h];
    if (typeof v === "string") headers[h] = v;
  }
  relayed.push({ event: headers["x-github-event"] ?? "", headers });
  const r = await fetch(target, { method: "POST", headers, body: Buffer.concat(chunks) });
  return { status: r.status, body: await r.text() };
}

function toUser(u: Json): Json {
  return { id: u.id, login: u.login, site_admin: u.is_admin === true };
}
function toLabel(l: Json): Json {
  return { id: l.id, name: l.name, color: String(l.color ?? "").replace(/^#/, ""), description: l.description ?? null };
}
function toIssue(i: Json): Json {
  const { pull_request, ...rest } = i;
  return {
    ...rest,
    user: toUser(obj(i.user)),
    labels: (Array.isArray(i.labels) ? i.labels : []).map((l) => toLabel(obj(l))),
    ...(pull_request ? { pull_request: { url: String(obj(pull_request).html_url ?? "") } } : {}),
  };
}
/** A comment's issue_url is the API's URL on GitHub (the forge gives the issue's web page). */
function toComment(c: Json, issueUrl: (n: string) => string): Json {
  const html = String(c.html_url ?? "");
  const n = html.match(/\/issues\/(\d+)/)?.[1] ?? "0";
  return { id: c.id, body: c.body, user: toUser(obj(c.user)), html_url: html, issue_url: issueUrl(n), created_at: c.created_at, updated_at: c.updated_at, author_association: "NONE" };
}
