// An in-memory server with GitHub's REST behaviour, as a `fetch` (issue 31, item 2): the second host
// that proves the IssueHost port takes more than Forgejo. What differs from Forgejo, as GitHub documents
// it (docs.github.com/rest):
// - shapes: labels added by name, colours without "#", a comment's issue_url is the API's, hooks are "web";
// - an issue's comment list is paged: per_page ≤ 100 (default 30), page, `Link` rel="next"/"last";
//   it filters on `since` (updated at or after) only, with no upper bound;
// - every answer carries the x-ratelimit-* headers; a spent primary limit is 403 with remaining 0, a
//   secondary limit 403 (or 429) with retry-after and a message naming it;
// - no API attaches a file to an issue or comment;
// - webhook deliveries carry X-GitHub-Event, X-GitHub-Delivery and X-Hub-Signature-256 only.
// Test code only: nothing in src/ imports it.
import { createHmac, randomUUID } from "node:crypto";

export interface GitHubUser {
  id: number;
  login: string;
  site_admin: boolean;
}
interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
}
interface Issue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  user: GitHubUser;
  labels: Label[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull_request?: { url: string };
}
interface Comment {
  id: number;
  issue: number;
  body: string;
  user: GitHubUser;
  created_at: string;
  updated_at: string;
}
interface Hook {
  id: number;
  name: "web";
  active: boolean;
  events: string[];
  config: Record<string, string>;
}

export interface GitHubRestOptions {
  /** owner/repo of the one repository it holds. */
  repo: { owner: string; repo: string };
  /** The clock, ms since the epoch (tests drive it). */
  now: () => number;
  /** The primary limit per token for an hour (x-ratelimit-limit). Default 5000. */
  rateLimit?: number;
}

const ORIGIN = "https://api.github.test";
const WEB = "https://github.test";
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/**
 * GitHub's REST API for one repository, in memory. `fetch` answers as api.github.com would for the
 * endpoints checkpost uses; `users` maps tokens to users; `permissions` holds collaborators' roles.
 */
export class GitHubRest {
  readonly issues = new Map<number, Issue>();
  readonly comments = new Map<number, Comment>();
  readonly labels: Label[] = [];
  readonly hooks: Hook[] = [];
  /** token → user */
  readonly users = new Map<string, GitHubUser>();
  /** login → "admin" | "maintain" | "write" | "triage" | "read" */
  readonly permissions = new Map<string, string>();
  /** Requests answered, each as "METHOD /path?query". */
  readonly log: string[] = [];
  private nextId = 1000;
  private used = new Map<string, number>();
  /** Requests still to refuse with a secondary rate limit, and the retry-after they name (s). */
  private secondary: { left: number; retryAfterS: number } = { left: 0, retryAfterS: 0 };

  constructor(readonly o: GitHubRestOptions) {}

  get apiUrl(): string {
    return ORIGIN;
  }

  /** A user and their token; the first one added owns the repository (role admin). */
  addUser(login: string, token = `ghp_${login}`): { user: GitHubUser; token: string } {
    const user = { id: this.nextId++, login, site_admin: false };
    this.users.set(token, user);
    if (this.permissions.size === 0) this.permissions.set(login, "admin");
    return { user, token };
  }

  /** The next `count` requests are refused as over a secondary rate limit, naming `retryAfterS`. */
  secondaryLimit(count: number, retryAfterS: number): void {
    this.secondary = { left: count, retryAfterS };
  }

  /** Seed comments directly (no request counted), oldest first. */
  seedComments(issue: number, author: string, bodies: string[]): void {
    const user = [...this.users.values()].find((u) => u.login === author);
    if (!user) throw new Error(`no user ${author}`);
    for (const body of bodies) {
      const at = iso(this.o.now());
      this.comments.set(this.nextId, { id: this.nextId++, issue, body, user, created_at: at, updated_at: at });
    }
  }

  /** A webhook delivery as GitHub sends it: its headers (signed with `secret`) and its body. */
  static delivery(event: string, payload: unknown, secret: string, hookId = 1): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/checkpost-fake",
        "x-github-event": event,
        "x-github-delivery": randomUUID(),
        "x-github-hook-id": String(hookId),
        "x-github-hook-installation-target-type": "repository",
        "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
      },
    };
  }

  /** GitHub's REST API as a fetch. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const method = (init?.method ?? "GET").toUpperCase();
    this.log.push(`${method} ${url.pathname}${url.search}`);
    const auth = new Headers(init?.headers).get("authorization") ?? "";
    const user = this.users.get(auth.replace(/^(token|Bearer) /, ""));
    const key = user?.login ?? "anonymous";
    const limit = user ? (this.o.rateLimit ?? 5000) : 60;
    const used = this.used.get(key) ?? 0;
    const rate = (spent: number) => rateLimitHeaders(limit, spent, this.o.now());
    const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
      new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...rate(used + 1), ...extra } });
    if (used >= limit)
      return json(403, { message: `API rate limit exceeded for ${key}.`, documentation_url: "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting" }, rate(used));
    if (this.secondary.left > 0) {
      this.secondary.left--;
      return json(
        403,
        {
          message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        },
        { "retry-after": String(this.secondary.retryAfterS) },
      );
    }
    this.used.set(key, used + 1);
    if (!user) return json(401, { message: "Requires authentication", documentation_url: "https://docs.github.com/rest" });
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    try {
      const r = this.route(method, url, body, user);
      return json(r.status, r.body, r.headers);
    } catch (e) {
      if (e instanceof Refusal) return json(e.status, { message: e.message, documentation_url: "https://docs.github.com/rest" });
      throw e;
    }
  };

  private route(method: string, url: URL, body: Record<string, unknown>, me: GitHubUser): { status: number; body: unknown; headers?: Record<string, string> } {
    const p = url.pathname;
    const { owner, repo } = this.o.repo;
    const base = `/repos/${owner}/${repo}`;
    const q = url.searchParams;
    // The id in a path under the repository: `/issues/{id}` and the like, or undefined.
    const idIn = (re: RegExp): string | undefined => (p.startsWith(base) ? p.slice(base.length).match(re)?.[1] : undefined);
    const issueId = idIn(/^\/issues\/(\d+)$/);
    const commentsOf = idIn(/^\/issues\/(\d+)\/comments$/);
    const commentId = idIn(/^\/issues\/comments\/(\d+)$/);
    const labelsOf = idIn(/^\/issues\/(\d+)\/labels$/);
    const hookId = idIn(/^\/hooks\/(\d+)$/);
    const permissionOf = idIn(/^\/collaborators\/([^/]+)\/permission$/);
    if (method === "GET" && p === "/user") return { status: 200, body: me };
    if (method === "GET" && p === "/meta") return { status: 200, body: { verifiable_password_authentication: false } };
    if (!p.startsWith(`${base}`) && !p.startsWith("/teams/")) throw new Refusal(404, "Not Found");
    if (method === "GET" && p === base) {
      const role = this.permissions.get(me.login);
      return {
        status: 200,
        body: {
          id: 1,
          full_name: `${owner}/${repo}`,
          private: true,
          permissions: {
            admin: role === "admin",
            maintain: role === "admin" || role === "maintain",
            push: role !== undefined && role !== "read" && role !== "triage",
            triage: role !== undefined && role !== "read",
            pull: role !== undefined,
          },
        },
      };
    }
    if (method === "GET" && p === `${base}/issues`) {
      const want = q.get("state") ?? "open";
      const labels = q.get("labels")?.split(",").filter(Boolean) ?? [];
      const all = [...this.issues.values()]
        .filter((i) => want === "all" || i.state === want)
        .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l)))
        .sort((a, b) => b.number - a.number);
      return this.page(
        url,
        all.map((i) => this.issueOut(i)),
      );
    }
    if (method === "POST" && p === `${base}/issues`) {
      const at = iso(this.o.now());
      const number = this.issues.size + 1;
      const names = (body.labels as string[] | undefined) ?? [];
      const issue: Issue = {
        id: this.nextId++,
        number,
        title: String(body.title),
        body: typeof body.body === "string" ? body.body : null,
        state: "open",
        user: me,
        labels: names.map((n) => this.label(n)),
        created_at: at,
        updated_at: at,
        closed_at: null,
      };
      this.issues.set(number, issue);
      return { status: 201, body: this.issueOut(issue) };
    }
    if (issueId !== undefined) {
      const issue = this.issue(Number(issueId));
      if (method === "GET") return { status: 200, body: this.issueOut(issue) };
      if (method === "PATCH") {
        if (typeof body.title === "string") issue.title = body.title;
        if (typeof body.body === "string") issue.body = body.body;
        if (body.state === "open" || body.state === "closed") {
          issue.closed_at = body.state === "closed" ? iso(this.o.now()) : null;
          issue.state = body.state;
        }
        issue.updated_at = iso(this.o.now());
        return { status: 200, body: this.issueOut(issue) };
      }
    }
    if (commentsOf !== undefined) {
      const issue = this.issue(Number(commentsOf));
      if (method === "GET") {
        const since = q.get("since");
        const list = [...this.comments.values()].filter((c) => c.issue === issue.number && (!since || Date.parse(c.updated_at) >= Date.parse(since))).sort((a, b) => a.id - b.id);
        return this.page(
          url,
          list.map((c) => this.commentOut(c)),
        );
      }
      if (method === "POST") {
        const at = iso(this.o.now());
        const c: Comment = { id: this.nextId++, issue: issue.number, body: String(body.body), user: me, created_at: at, updated_at: at };
        this.comments.set(c.id, c);
        issue.updated_at = at;
        return { status: 201, body: this.commentOut(c) };
      }
    }
    if (commentId !== undefined) {
      const c = this.comments.get(Number(commentId));
      if (!c) throw new Refusal(404, "Not Found");
      if (method === "GET") return { status: 200, body: this.commentOut(c) };
      if (method === "PATCH") {
        c.body = String(body.body);
        c.updated_at = iso(this.o.now());
        return { status: 200, body: this.commentOut(c) };
      }
      if (method === "DELETE") {
        this.comments.delete(c.id);
        return { status: 204, body: null };
      }
    }
    if (p === `${base}/labels`) {
      if (method === "GET") return this.page(url, this.labels);
      if (method === "POST") {
        const name = String(body.name);
        if (this.labels.some((l) => l.name === name)) throw new Refusal(422, "Validation Failed");
        const color = String(body.color);
        if (!/^[0-9a-fA-F]{6}$/.test(color)) throw new Refusal(422, "Validation Failed"); // no "#", unlike Forgejo
        const l: Label = { id: this.nextId++, name, color, description: typeof body.description === "string" ? body.description : null };
        this.labels.push(l);
        return { status: 201, body: l };
      }
    }
    if (labelsOf !== undefined && method === "POST") {
      const issue = this.issue(Number(labelsOf));
      for (const n of (body.labels as string[] | undefined) ?? []) if (!issue.labels.some((l) => l.name === n)) issue.labels.push(this.label(n));
      return { status: 200, body: issue.labels };
    }
    if (p === `${base}/hooks`) {
      if (method === "GET") return this.page(url, this.hooks.map(hookOut));
      if (method === "POST") {
        if (body.name !== "web") throw new Refusal(422, "Validation Failed");
        const h: Hook = {
          id: this.nextId++,
          name: "web",
          active: body.active !== false,
          events: (body.events as string[] | undefined) ?? ["push"],
          config: { ...(body.config as Record<string, string>) },
        };
        this.hooks.push(h);
        return { status: 201, body: hookOut(h) };
      }
    }
    if (hookId !== undefined && method === "DELETE") {
      const i = this.hooks.findIndex((h) => h.id === Number(hookId));
      if (i < 0) throw new Refusal(404, "Not Found");
      this.hooks.splice(i, 1);
      return { status: 204, body: null };
    }
    if (method === "GET" && p === `${base}/collaborators`) {
      const users = [...this.users.values()].filter((u) => this.permissions.has(u.login));
      return this.page(url, users);
    }
    if (method === "GET" && permissionOf !== undefined) {
      const login = decodeURIComponent(permissionOf);
      const user = [...this.users.values()].find((u) => u.login === login);
      if (!user) throw new Refusal(404, "Not Found");
      const role = this.permissions.get(login);
      // GitHub's permission is admin, write, read or none; role_name says maintain and triage too.
      const permission = role === "admin" ? "admin" : role === "maintain" || role === "write" ? "write" : role === "triage" || role === "read" ? "read" : "none";
      return { status: 200, body: { permission, role_name: role ?? "none", user } };
    }
    if (method === "GET" && p === `${base}/teams`) return this.page(url, []);
    if (method === "GET" && p.startsWith("/teams/")) throw new Refusal(404, "Not Found");
    if (p.endsWith("/assets")) throw new Refusal(404, "Not Found"); // no attachment API
    throw new Refusal(404, "Not Found");
  }

  private page<T>(url: URL, all: T[]): { status: number; body: T[]; headers: Record<string, string> } {
    return githubPage(url, all, ORIGIN);
  }

  private issue(n: number): Issue {
    const i = this.issues.get(n);
    if (!i) throw new Refusal(404, "Not Found");
    return i;
  }
  private label(name: string): Label {
    const found = this.labels.find((l) => l.name === name);
    if (found) return found;
    // GitHub creates a label it is given by a name it does not know.
    const l: Label = { id: this.nextId++, name, color: "ededed", description: null };
    this.labels.push(l);
    return l;
  }
  private issueOut(i: Issue) {
    const { owner, repo } = this.o.repo;
    return {
      ...i,
      url: `${ORIGIN}/repos/${owner}/${repo}/issues/${i.number}`,
      html_url: `${WEB}/${owner}/${repo}/issues/${i.number}`,
      comments: [...this.comments.values()].filter((c) => c.issue === i.number).length,
      author_association: "OWNER",
    };
  }
  private commentOut(c: Comment) {
    const { owner, repo } = this.o.repo;
    const { issue, ...rest } = c;
    return { ...rest, html_url: `${WEB}/${owner}/${repo}/issues/${issue}#issuecomment-${c.id}`, issue_url: `${ORIGIN}/repos/${owner}/${repo}/issues/${issue}`, author_association: "OWNER" };
  }
}

/**
 * GitHub's x-ratelimit-* headers (and Date) for a token allowed `limit` requests an hour that has spent
 * `spent`: the window resets on the hour. Shared by GitHubRest and the GitHub surface over the forge.
 */
export function rateLimitHeaders(limit: number, spent: number, nowMs: number): Record<string, string> {
  const reset = (Math.floor(nowMs / 1000 / 3600) + 1) * 3600;
  return {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(Math.max(0, limit - spent)),
    "x-ratelimit-used": String(spent),
    "x-ratelimit-reset": String(reset),
    "x-ratelimit-resource": "core",
    date: new Date(nowMs).toUTCString(),
  };
}

/**
 * One page of `all` as GitHub answers a list: per_page ≤ 100 (default 30), page from 1, a Link header to
 * the first, previous, next and last pages, its URLs on `origin`. Shared by GitHubRest and the GitHub
 * surface over the forge (github-over-forge.ts).
 */
export function githubPage<T>(url: URL, all: T[], origin: string): { status: number; body: T[]; headers: Record<string, string> } {
  const per = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(all.length / per));
  const at = (n: number) => {
    const u = new URL(url.toString().replace(url.origin, origin));
    u.searchParams.set("per_page", String(per));
    u.searchParams.set("page", String(n));
    return u.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${at(1)}>; rel="first"`, `<${at(page - 1)}>; rel="prev"`);
  if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  return { status: 200, body: all.slice((page - 1) * per, page * per), headers: links.length ? { link: links.join(", ") } : {} };
}

const hookOut = (h: Hook) => ({ ...h, type: "Repository", config: { url: h.config.url, content_type: h.config.content_type ?? "form", insecure_ssl: h.config.insecure_ssl ?? "0" } });

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
