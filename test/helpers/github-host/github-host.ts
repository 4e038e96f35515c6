// An IssueHost adapter for GitHub's REST behaviour (issue 31, item 2), run against GitHubRest in tests.
// It is not a product adapter: it proves the port takes a host that pages comment lists, filters them
// only from below, names labels instead of ids, limits rates GitHub's way and has no attachment API.
// Every answer is checked with zod, as the Forgejo adapter's are; its statuses map to HostError's reasons.
import { readForgejoDelivery } from "../../../src/forgejo-client/index.ts";
import { sha256SignatureProblem } from "../../../src/util/hmac-signature.ts";
import * as z from "zod";
import { HostError, type HostErrorReason } from "../../../src/errors.ts";
import type {
  AttachTarget,
  CommentWindow,
  DeliveryHeaders,
  HostWebhook,
  IssueBody,
  IssueState,
  SessionIssueQuery,
  WebhookEvent,
  HostAttachment,
  HostCapabilities,
  HostComment,
  HostIssue,
  HostLabel,
  HostRepo,
  IssueWriteAccess,
  ReadDelivery,
  RepoAccess,
  HostUser,
  IssueHost,
  RepoRef,
} from "../../../src/ports/issue-host.ts";

/** What GitHub can do, as the port asks it. */
export const GITHUB_CAPABILITIES: HostCapabilities = Object.freeze({
  editHistory: true,
  attachments: false,
  repositoryScopedTokens: true,
  pagedCommentLists: true,
  commentsUntil: false,
  compareAndSetBody: false,
  issueRightsApartFromCode: false,
});

const User = z.object({ id: z.number(), login: z.string(), site_admin: z.boolean().optional() });
const Label = z.object({ id: z.number(), name: z.string(), color: z.string() });
const Issue = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullable(),
  state: z.string(),
  html_url: z.string(),
  user: User,
  labels: z.array(Label),
  comments: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
  pull_request: z.object({}).passthrough().optional(),
});
const Comment = z.object({ id: z.number(), body: z.string(), user: User, html_url: z.string(), issue_url: z.string(), created_at: z.string(), updated_at: z.string() });
const Hook = z.object({ id: z.number(), type: z.string(), name: z.string(), active: z.boolean(), events: z.array(z.string()), config: z.record(z.string(), z.string()) });
const Repo = z.object({ id: z.number(), full_name: z.string(), private: z.boolean(), permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).optional() });
const Permission = z.object({ permission: z.enum(["admin", "write", "read", "none"]), role_name: z.string() });
const ErrorBody = z.object({ message: z.string() }).partial();

/** A GitHub answer that failed: the status and rate-limit headers ride along for the retry policy. */
export class GitHubHostError extends HostError {
  override name = "GitHubHostError";
  constructor(
    message: string,
    reason: HostErrorReason,
    readonly status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, reason);
  }
}

/**
 * GitHub's statuses by intent. A rate limit is 403 or 429: the primary one says x-ratelimit-remaining 0,
 * a secondary one names itself in the message and sends retry-after (docs.github.com, "Rate limits for
 * the REST API"). Any other 403 is a refusal.
 */
export function githubReason(status: number, headers: Headers, message: string): HostErrorReason {
  if (status === 0 || status >= 500) return "unavailable";
  if (status === 401) return "unauthenticated";
  if (status === 429 || (status === 403 && (headers.get("x-ratelimit-remaining") === "0" || /secondary rate limit/i.test(message)))) return "rate-limited";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409) return "conflict";
  return "invalid";
}

/** The URL of rel="next" in a Link header, or null on the last page. */
export function nextLink(link: string | null): string | null {
  for (const part of (link ?? "").split(",")) {
    const m = part.match(/<([^>]+)>;\s*rel="next"/);
    if (m?.[1]) return m[1];
  }
  return null;
}

const toUser = (u: z.infer<typeof User>): HostUser => ({ id: u.id, login: u.login, ...(u.site_admin ? { isAdmin: true } : {}) });
const toLabel = (l: z.infer<typeof Label>): HostLabel => ({ name: l.name, color: `#${l.color}` });
const toIssue = (i: z.infer<typeof Issue>): HostIssue => ({
  id: i.id,
  number: i.number,
  title: i.title,
  body: i.body ?? "",
  state: i.state,
  htmlUrl: i.html_url,
  author: i.user.login,
  labels: i.labels.map(toLabel),
  commentCount: i.comments,
  createdAt: i.created_at,
  updatedAt: i.updated_at,
  closedAt: i.closed_at,
  isPullRequest: i.pull_request !== undefined,
});
// issue_url is the API's URL on GitHub: the web URL of the issue is the comment's, without its anchor.
const toComment = (c: z.infer<typeof Comment>): HostComment => ({
  id: c.id,
  body: c.body,
  author: c.user.login,
  htmlUrl: c.html_url,
  issueUrl: c.html_url.replace(/#.*$/, ""),
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});
const toHook = (h: z.infer<typeof Hook>): HostWebhook => ({
  id: h.id,
  url: h.config["url"] ?? "",
  active: h.active,
  events: h.events,
  ...(h.config["content_type"] ? { contentType: h.config["content_type"] } : {}),
});
const seconds = (ms: number) => Math.floor(ms / 1000);

export interface GitHubHostOptions {
  apiUrl: string;
  token: string;
  fetch: typeof fetch;
  /** Our clock (ms); the host's Date header gives the offset. */
  now: () => number;
  /** Waits a retry-after or a backoff; tests pass one that records and returns at once. */
  wait?: (ms: number) => Promise<void>;
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** Longest retry-after honoured; longer ones fail at once. Default 60 s. */
  maxRetryAfterMs?: number;
}

/** GitHub's issue list query (its REST words; `q` and `type` are applied to the answer, GitHub has neither here). */
export interface IssueQuery {
  state?: IssueState;
  labels?: string;
  q?: string;
  type?: "issues" | "pulls";
}

export class GitHubHost implements IssueHost {
  readonly capabilities = GITHUB_CAPABILITIES;
  serverClockOffsetMs = 0;
  requestCount = 0;
  constructor(readonly o: GitHubHostOptions) {}

  async withRetry<T>(fn: (attemptNumber: number) => Promise<T>): Promise<T> {
    const retries = this.o.retries ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (e) {
        if (!(e instanceof GitHubHostError) || attempt > retries) throw e;
        if (e.reason === "rate-limited" && e.retryAfterMs !== undefined && e.retryAfterMs <= (this.o.maxRetryAfterMs ?? 60_000)) await this.wait(e.retryAfterMs);
        else if (e.reason === "unavailable") await this.wait(250 * 2 ** (attempt - 1));
        else throw e;
      }
    }
  }
  private wait(ms: number): Promise<void> {
    return this.o.wait ? this.o.wait(ms) : new Promise((r) => setTimeout(r, ms));
  }

  isOutcomeUnknown(error: unknown): boolean {
    return error instanceof HostError && error.reason === "unavailable";
  }

  /** One request, no retry: the answer's JSON checked with `schema`, and its headers. */
  private async send<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<{ data: z.infer<S>; headers: Headers }> {
    this.requestCount++;
    const url = path.startsWith("http") ? path : `${this.o.apiUrl}${path}`;
    let res: Response;
    try {
      res = await this.o.fetch(url, {
        method,
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${this.o.token}`,
          "x-github-api-version": "2022-11-28",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (e) {
      throw new GitHubHostError(`Could not reach GitHub for ${method} ${path}: ${e instanceof Error ? e.message : String(e)}`, "unavailable", 0, undefined);
    }
    const date = Date.parse(res.headers.get("date") ?? "");
    if (!Number.isNaN(date)) this.serverClockOffsetMs = date - this.o.now();
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const said = ErrorBody.safeParse(json).data?.message ?? "";
      const reason = githubReason(res.status, res.headers, said);
      const after = res.headers.get("retry-after");
      const reset = res.headers.get("x-ratelimit-reset");
      const retryAfterMs =
        after !== null ? Number(after) * 1000 : reason === "rate-limited" && reset !== null ? Math.max(0, Number(reset) * 1000 - (this.o.now() + this.serverClockOffsetMs)) : undefined;
      throw new GitHubHostError(`GitHub answered ${res.status} on ${method} ${path}: ${said}`, reason, res.status, retryAfterMs);
    }
    return { data: schema.parse(json), headers: res.headers };
  }
  private call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    // Only reads and idempotent writes are retried by the host itself.
    const once = () => this.send(method, path, schema, body).then((r) => r.data);
    return method === "POST" ? once() : this.withRetry(once);
  }
  /** Every page of a list, following Link rel="next" at per_page=100 (GitHub's most). */
  private async all<S extends z.ZodType>(path: string, item: S): Promise<z.infer<S>[]> {
    const out: z.infer<S>[] = [];
    let next: string | null = `${path}${path.includes("?") ? "&" : "?"}per_page=100`;
    while (next) {
      const url: string = next;
      const r = await this.withRetry(() => this.send("GET", url, z.array(item)));
      out.push(...r.data);
      next = nextLink(r.headers.get("link"));
    }
    return out;
  }
  private repoPath(r: RepoRef): string {
    return `/repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;
  }

  async version(): Promise<string> {
    const meta = await this.call("GET", "/meta", z.object({ installed_version: z.string().optional() }).passthrough());
    return meta.installed_version ?? "github.com";
  }
  async currentUser(): Promise<HostUser> {
    return toUser(await this.call("GET", "/user", User));
  }

  async listIssues(r: RepoRef, q: IssueQuery & { page?: number; limit?: number } = {}): Promise<{ issues: HostIssue[]; totalCount: number | null }> {
    const params = new URLSearchParams({ state: q.state ?? "open", per_page: String(Math.min(100, q.limit ?? 30)), page: String(q.page ?? 1), ...(q.labels ? { labels: q.labels } : {}) });
    const list = (await this.call("GET", `${this.repoPath(r)}/issues?${params}`, z.array(Issue))).map(toIssue);
    return { issues: this.filter(list, q), totalCount: null };
  }
  async listAllIssues(r: RepoRef, q: IssueQuery = {}): Promise<HostIssue[]> {
    const params = new URLSearchParams({ state: q.state ?? "open", ...(q.labels ? { labels: q.labels } : {}) });
    return this.filter((await this.all(`${this.repoPath(r)}/issues?${params}`, Issue)).map(toIssue), q);
  }
  /** GitHub lists pull requests among issues and has no free-text filter here: both are applied to the list. */
  private filter(list: HostIssue[], q: IssueQuery): HostIssue[] {
    const text = q.q?.toLowerCase();
    return list.filter((i) => (q.type === "pulls" ? i.isPullRequest : q.type === "issues" ? !i.isPullRequest : true) && (!text || i.title.toLowerCase().includes(text)));
  }
  async getIssue(r: RepoRef, index: number): Promise<HostIssue> {
    return toIssue(await this.call("GET", `${this.repoPath(r)}/issues/${index}`, Issue));
  }
  async createIssue(r: RepoRef, input: { title: string; body?: string; labels?: string[] }): Promise<HostIssue> {
    const labels = input.labels?.length ? input.labels : undefined;
    return toIssue(await this.call("POST", `${this.repoPath(r)}/issues`, Issue, { title: input.title, ...(input.body !== undefined ? { body: input.body } : {}), ...(labels ? { labels } : {}) }));
  }
  async editIssue(r: RepoRef, index: number, input: { title?: string; body?: string; state?: "open" | "closed" }): Promise<HostIssue> {
    return toIssue(await this.call("PATCH", `${this.repoPath(r)}/issues/${index}`, Issue, input));
  }

  /**
   * GitHub pages the list and filters it only from below (`since`, updated at or after): the upper end
   * of a window is applied here, in whole seconds and inclusive, as the port promises.
   */
  async listComments(r: RepoRef, index: number, w: CommentWindow = {}): Promise<HostComment[]> {
    const since = w.sinceMs === undefined ? "" : `?since=${new Date(seconds(w.sinceMs) * 1000).toISOString().replace(".000Z", "Z")}`;
    const list = (await this.all(`${this.repoPath(r)}/issues/${index}/comments${since}`, Comment)).map(toComment);
    const before = w.untilMs;
    return before === undefined ? list : list.filter((c) => seconds(Date.parse(c.updatedAt)) <= seconds(before));
  }
  async getComment(r: RepoRef, id: number): Promise<HostComment> {
    return toComment(await this.call("GET", `${this.repoPath(r)}/issues/comments/${id}`, Comment));
  }
  async createComment(r: RepoRef, index: number, body: string, opts: { retry?: boolean } = {}): Promise<HostComment> {
    const once = () => this.send("POST", `${this.repoPath(r)}/issues/${index}/comments`, Comment, { body }).then((x) => toComment(x.data));
    return opts.retry === false ? once() : this.withRetry(once);
  }
  async editComment(r: RepoRef, id: number, body: string): Promise<HostComment> {
    return toComment(await this.call("PATCH", `${this.repoPath(r)}/issues/comments/${id}`, Comment, { body }));
  }
  async deleteComment(r: RepoRef, id: number): Promise<void> {
    await this.call("DELETE", `${this.repoPath(r)}/issues/comments/${id}`, z.null());
  }

  // No attachment API on GitHub (capabilities.attachments is false): listing finds none, writing is refused.
  async listIssueAttachments(_r: RepoRef, _index: number): Promise<HostAttachment[]> {
    return [];
  }
  async createIssueAttachment(r: RepoRef, index: number, _name: string, _bytes: Uint8Array, _contentType?: string): Promise<HostAttachment> {
    throw new GitHubHostError(`GitHub has no API to attach a file to issue #${index} of ${r.owner}/${r.repo} (capabilities.attachments is false)`, "invalid", 0, undefined);
  }
  async downloadAttachment(url: string): Promise<Buffer> {
    throw new GitHubHostError(`GitHub has no attachment API: ${url}`, "not-found", 0, undefined);
  }

  async listLabels(r: RepoRef): Promise<HostLabel[]> {
    return (await this.all(`${this.repoPath(r)}/labels`, Label)).map(toLabel);
  }
  async createLabel(r: RepoRef, input: { name: string; color: string; description?: string }): Promise<HostLabel> {
    return toLabel(
      await this.call("POST", `${this.repoPath(r)}/labels`, Label, { name: input.name, color: input.color.replace(/^#/, ""), ...(input.description ? { description: input.description } : {}) }),
    );
  }
  async addIssueLabels(r: RepoRef, index: number, labels: string[]): Promise<HostLabel[]> {
    return (await this.call("POST", `${this.repoPath(r)}/issues/${index}/labels`, z.array(Label), { labels })).map(toLabel);
  }

  async listHooks(r: RepoRef): Promise<HostWebhook[]> {
    return (await this.all(`${this.repoPath(r)}/hooks`, Hook)).map(toHook);
  }
  async createHook(r: RepoRef, input: { config: Record<string, string>; events: string[]; active: boolean }): Promise<HostWebhook> {
    return toHook(await this.call("POST", `${this.repoPath(r)}/hooks`, Hook, { name: "web", config: input.config, events: input.events, active: input.active }));
  }
  async deleteHook(r: RepoRef, id: number): Promise<void> {
    await this.call("DELETE", `${this.repoPath(r)}/hooks/${id}`, z.null());
  }

  async getRepo(r: RepoRef): Promise<HostRepo> {
    const repo = await this.call("GET", this.repoPath(r), Repo);
    const p = repo.permissions;
    return { id: repo.id, fullName: repo.full_name, private: repo.private, ...(p ? { access: p.admin ? "admin" : p.push ? "write" : p.pull ? "read" : "none" } : {}) };
  }
  async listCollaborators(r: RepoRef): Promise<HostUser[]> {
    return (await this.all(`${this.repoPath(r)}/collaborators`, User)).map(toUser);
  }
  /** GitHub's collaborator permission is already the effective one (teams included): admin, write, read or none. */
  async repoAccess(r: RepoRef, user: string): Promise<RepoAccess> {
    const p = (await this.call("GET", `${this.repoPath(r)}/collaborators/${encodeURIComponent(user)}/permission`, Permission)).permission;
    return p === "admin" || p === "write" || p === "read" ? p : "none";
  }
  /** On GitHub, writing others' issues needs write (triage may label and close, not edit): no team walk. */
  async mayCommand(r: RepoRef, user: string): Promise<IssueWriteAccess> {
    const access = await this.repoAccess(r, user);
    return { canWrite: access === "write" || access === "admin", hiddenGroups: [] };
  }

  // ── The port's intents, on GitHub's REST above ──
  /** GitHub lists pull requests among issues: they are dropped here; every page is read. */
  async findSessionIssues(r: RepoRef, q: SessionIssueQuery): Promise<HostIssue[]> {
    const all = await this.listAllIssues(r, { state: q.state ?? "open", type: "issues", ...(q.label !== undefined ? { labels: q.label } : {}) });
    return all.filter((i) => (q.title === undefined || i.title.includes(q.title)) && (q.label === undefined || i.labels.some((l) => l.name === q.label))).sort((a, b) => b.number - a.number);
  }
  /** GitHub creates an issue's labels by name, but only labels the repository has: missing ones are created first. */
  async openSessionIssue(r: RepoRef, input: { title: string; body: string; labels?: string[] }): Promise<HostIssue> {
    const labels = input.labels ?? [];
    if (labels.length) {
      const have = new Set((await this.listLabels(r)).map((l) => l.name));
      for (const name of labels) if (!have.has(name)) await this.createLabel(r, { name, color: "0075ca" });
    }
    return this.createIssue(r, { title: input.title, body: input.body, labels });
  }
  labelIssue(r: RepoRef, issue: number, labels: string[]): Promise<HostLabel[]> {
    return this.addIssueLabels(r, issue, labels);
  }
  readIssue(r: RepoRef, issue: number): Promise<HostIssue> {
    return this.getIssue(r, issue);
  }
  closeIssue(r: RepoRef, issue: number): Promise<HostIssue> {
    return this.editIssue(r, issue, { state: "closed" });
  }
  async readIssueBody(r: RepoRef, issue: number): Promise<IssueBody> {
    const i = await this.getIssue(r, issue);
    return { body: i.body, updatedAt: i.updatedAt, author: i.author };
  }
  /** A plain PATCH: GitHub's REST takes no If-Match on an issue either. */
  async writeIssueBody(r: RepoRef, issue: number, body: string): Promise<IssueBody> {
    const i = await this.editIssue(r, issue, { body });
    return { body: i.body, updatedAt: i.updatedAt, author: i.author };
  }
  listCommentsSince(r: RepoRef, issue: number, window?: CommentWindow): Promise<HostComment[]> {
    return this.listComments(r, issue, window);
  }
  readRecord(r: RepoRef, id: number): Promise<HostComment> {
    return this.getComment(r, id);
  }
  postRecord(r: RepoRef, issue: number, body: string, opts?: { retry?: boolean }): Promise<HostComment> {
    return this.createComment(r, issue, body, opts);
  }
  editRecord(r: RepoRef, id: number, body: string): Promise<HostComment> {
    return this.editComment(r, id, body);
  }
  deleteRecord(r: RepoRef, id: number): Promise<void> {
    return this.deleteComment(r, id);
  }
  attach(r: RepoRef, to: AttachTarget, name: string, bytes: Uint8Array, contentType?: string): Promise<HostAttachment> {
    return this.createIssueAttachment(r, "issue" in to ? to.issue : to.comment, name, bytes, contentType);
  }
  listAttachments(r: RepoRef, on: AttachTarget): Promise<HostAttachment[]> {
    return this.listIssueAttachments(r, "issue" in on ? on.issue : on.comment);
  }
  /** GitHub has one kind of repository webhook, "web". */
  async ensureWebhook(r: RepoRef, input: { url: string; secret: string; events: readonly WebhookEvent[] }): Promise<{ webhook: HostWebhook; replaced: number[] }> {
    const replaced: number[] = [];
    for (const h of await this.listHooks(r))
      if (h.url === input.url) {
        await this.deleteHook(r, h.id);
        replaced.push(h.id);
      }
    const webhook = await this.createHook(r, { config: { url: input.url, content_type: "json", secret: input.secret }, events: [...input.events], active: true });
    return { webhook, replaced };
  }
  listWebhooks(r: RepoRef): Promise<HostWebhook[]> {
    return this.listHooks(r);
  }
  removeWebhook(r: RepoRef, id: number): Promise<void> {
    return this.deleteHook(r, id);
  }
}

/**
 * GitHub's issue_comment and issues payloads as the port's HostDelivery. For the fields the bot reads they
 * are the shapes Forgejo copied (a pull request's issue carries \`pull_request\`, an edit \`changes.body.from\`),
 * so the Forgejo adapter's reader serves; a real GitHub adapter would own its reader.
 */
export const readGitHubDelivery: ReadDelivery = readForgejoDelivery;

/** GitHub signs a delivery with X-Hub-Signature-256: `sha256=` and the hex HMAC-SHA256 of the raw body. */
export function verifyGitHubDelivery(headers: DeliveryHeaders, rawBody: Buffer | string, secret: string): string | null {
  return sha256SignatureProblem("X-Hub-Signature-256", headers["x-hub-signature-256"], rawBody, secret);
}
