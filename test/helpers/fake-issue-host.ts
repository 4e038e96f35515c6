import type {
  AttachTarget,
  CommentWindow,
  IssueBody,
  SessionIssueQuery,
  HostWebhook,
  WebhookEvent,
  HostAttachment,
  HostComment,
  HostIssue,
  HostLabel,
  HostRepo,
  HostUser,
  IssueHost,
  IssueState,
  IssueWriteAccess,
  RepoAccess,
  RepoRef,
} from "../../src/ports/issue-host.ts";
import type { HostCapabilities } from "../../src/ports/issue-host.ts";
import { HostError } from "../../src/errors.ts";
import { FORGEJO_CAPABILITIES } from "../../src/forgejo-client/index.ts";
import { DEFAULT_ATTACHMENT_ALLOWED_TYPES, uploadAllowed } from "../../src/embedded-forge/upload-verify.ts";

/** A missing thing as every adapter throws it: a HostError with reason not-found. */
const notFound = (what: string) => new HostError(`${what} (404)`, "not-found");

/** A query of the fake's issue list (Forgejo's words: the fake's primitives mirror a REST host's). */
export interface IssueQuery {
  state?: IssueState;
  labels?: string;
  q?: string;
  type?: "issues" | "pulls";
}

/** A hook as the fake keeps it: the port's record, plus what it was created with. */
export type FakeHook = HostWebhook & { type: string; config: Record<string, string> };

/** The fake's primitives (REST-like, what `calls` logs and `after` hooks); the port's intents call them. */
type Method =
  | "version"
  | "currentUser"
  | "listIssues"
  | "listAllIssues"
  | "getIssue"
  | "createIssue"
  | "editIssue"
  | "listComments"
  | "getComment"
  | "createComment"
  | "editComment"
  | "deleteComment"
  | "listIssueAttachments"
  | "createIssueAttachment"
  | "listCommentAttachments"
  | "createCommentAttachment"
  | "downloadAttachment"
  | "listLabels"
  | "createLabel"
  | "addIssueLabels"
  | "listHooks"
  | "createHook"
  | "deleteHook"
  | "getRepo"
  | "listCollaborators"
  | "repoAccess"
  | "mayCommand";

/**
 * An in-memory IssueHost for unit tests: one repository's issues, comments, attachments, labels,
 * hooks and collaborators, kept as the port's records, so a test needs no casts. It answers as the
 * real host would where the product relies on it (404 for what is missing, `since`/`before` windows
 * on the updated time in whole seconds, both ends included). The clock is an argument.
 *
 * `calls` lists the methods in the order they were called; `after(method, fn)` runs `fn` once, after
 * the next call of `method` took effect and before it answers (to open a race window).
 */
export class FakeIssueHost implements IssueHost {
  serverClockOffsetMs = 0;
  readonly calls: Method[] = [];
  readonly issues = new Map<number, HostIssue>();
  readonly comments = new Map<number, HostComment[]>();
  readonly attachments = new Map<number, HostAttachment[]>();
  readonly files = new Map<string, Uint8Array>();
  readonly labels: HostLabel[] = [];
  readonly hooks: FakeHook[] = [];
  /** Attachments of comments, by comment id. */
  readonly commentAttachments = new Map<number, HostAttachment[]>();
  /** login → access mode ("owner", "admin", "write", "read"); others read as "none". */
  readonly permissions = new Map<string, string>();
  /** The next id handed out; an object, so views by another login (`as`) share it. */
  private readonly ids: { next: number };
  private readonly once = new Map<Method, (() => void)[]>();

  /** What it can do: Forgejo's unless a test says otherwise. */
  readonly capabilities: HostCapabilities;

  /** `login`: the token's user (default "bot"); `firstId`: the first id handed out (default 1); `now`: the clock (ms); `capabilities`: overrides of Forgejo's. */
  constructor(readonly o: { login?: string; firstId?: number; now?: () => number; url?: string; capabilities?: Partial<HostCapabilities> } = {}) {
    this.ids = { next: o.firstId ?? 1 };
    this.capabilities = { ...FORGEJO_CAPABILITIES, ...o.capabilities };
  }

  get requestCount(): number {
    return this.calls.length;
  }
  private get login(): string {
    return this.o.login ?? "bot";
  }
  private get url(): string {
    return this.o.url ?? "http://host.test";
  }
  private now(): string {
    return new Date(this.o.now ? this.o.now() : Date.UTC(2026, 10, 29, 10, 0, 0)).toISOString();
  }

  /**
   * The same host as another token's user: every issue, comment, label and id is shared, and what the
   * view writes is by `login` (two users of one repository, e.g. an agent and the bot).
   */
  as(login: string): FakeIssueHost {
    const view = new FakeIssueHost({ ...this.o, login });
    return Object.assign(view, {
      issues: this.issues,
      comments: this.comments,
      attachments: this.attachments,
      commentAttachments: this.commentAttachments,
      files: this.files,
      labels: this.labels,
      hooks: this.hooks,
      permissions: this.permissions,
      teams: this.teams,
      ids: this.ids,
      capabilities: this.capabilities,
    });
  }

  after(method: Method, fn: () => void): void {
    this.once.set(method, [...(this.once.get(method) ?? []), fn]);
  }

  private call(method: Method): void {
    this.calls.push(method);
  }
  private done<T>(method: Method, value: T): T {
    const fns = this.once.get(method) ?? [];
    this.once.delete(method);
    for (const fn of fns) fn();
    return value;
  }

  async withRetry<T>(fn: (attemptNumber: number) => Promise<T>): Promise<T> {
    return fn(1);
  }
  isOutcomeUnknown(error: unknown): boolean {
    return error instanceof HostError && error.reason === "unavailable";
  }

  /** Seed an issue; returns it. */
  addIssue(input: Partial<HostIssue> & { number?: number } = {}): HostIssue {
    const number = input.number ?? this.issues.size + 1;
    const at = this.now();
    const issue: HostIssue = {
      id: number,
      number,
      title: "session",
      body: "",
      state: "open",
      htmlUrl: `${this.url}/o/r/issues/${number}`,
      author: this.login,
      labels: [],
      createdAt: at,
      updatedAt: at,
      isPullRequest: false,
      ...input,
    };
    this.issues.set(number, issue);
    if (!this.comments.has(number)) this.comments.set(number, []);
    return issue;
  }

  /** Seed a comment on an issue (created if missing); returns it. */
  addComment(issue: number, input: Partial<HostComment> & { body: string }): HostComment {
    if (!this.issues.has(issue)) this.addIssue({ number: issue });
    const id = input.id ?? this.ids.next++;
    this.ids.next = Math.max(this.ids.next, id + 1);
    const at = this.now();
    const c: HostComment = {
      id,
      author: this.login,
      htmlUrl: `${this.url}/o/r/issues/${issue}#issuecomment-${id}`,
      issueUrl: `${this.url}/o/r/issues/${issue}`,
      createdAt: at,
      updatedAt: at,
      ...input,
    };
    this.comments.get(issue)?.push(c);
    return c;
  }

  private issue(index: number): HostIssue {
    const i = this.issues.get(index);
    if (!i) throw notFound(`issue #${index} not found`);
    return i;
  }
  private commentById(id: number): { list: HostComment[]; at: number; comment: HostComment } {
    for (const list of this.comments.values()) {
      const at = list.findIndex((c) => c.id === id);
      const comment = list[at];
      if (comment) return { list, at, comment };
    }
    throw notFound(`comment ${id} not found`);
  }
  private withCount(i: HostIssue): HostIssue {
    return { ...i, commentCount: this.comments.get(i.number)?.length ?? 0 };
  }

  async version(): Promise<string> {
    this.call("version");
    return this.done("version", "fake");
  }
  async currentUser(): Promise<HostUser> {
    this.call("currentUser");
    return this.done("currentUser", { id: 1, login: this.login });
  }

  private matches(i: HostIssue, q: IssueQuery): boolean {
    if (q.state && q.state !== "all" && i.state !== q.state) return false;
    if (q.labels && !q.labels.split(",").every((l) => i.labels.some((x) => x.name === l))) return false;
    if (q.q && !i.title.includes(q.q) && !i.body.includes(q.q)) return false;
    return q.type === "pulls" ? i.isPullRequest : !i.isPullRequest;
  }
  async listIssues(_r: RepoRef, q: IssueQuery & { page?: number; limit?: number } = {}): Promise<{ issues: HostIssue[]; totalCount: number | null }> {
    this.call("listIssues");
    const all = [...this.issues.values()].filter((i) => this.matches(i, { state: "open", ...q })).sort((a, b) => b.number - a.number);
    const limit = q.limit ?? 50;
    const page = q.page ?? 1;
    return this.done("listIssues", { issues: all.slice((page - 1) * limit, page * limit).map((i) => this.withCount(i)), totalCount: all.length });
  }
  async listAllIssues(_r: RepoRef, q: IssueQuery = {}): Promise<HostIssue[]> {
    this.call("listAllIssues");
    return this.done(
      "listAllIssues",
      [...this.issues.values()]
        .filter((i) => this.matches(i, { state: "open", ...q }))
        .sort((a, b) => b.number - a.number)
        .map((i) => this.withCount(i)),
    );
  }
  async getIssue(_r: RepoRef, index: number): Promise<HostIssue> {
    this.call("getIssue");
    return this.done("getIssue", this.withCount(this.issue(index)));
  }
  async createIssue(_r: RepoRef, input: { title: string; body?: string; labels?: string[] }): Promise<HostIssue> {
    this.call("createIssue");
    const labels = this.labels.filter((l) => input.labels?.includes(l.name));
    const number = Math.max(0, ...this.issues.keys()) + 1;
    return this.done("createIssue", this.withCount(this.addIssue({ number, title: input.title, body: input.body ?? "", labels })));
  }
  async editIssue(_r: RepoRef, index: number, input: { title?: string; body?: string; state?: "open" | "closed" }): Promise<HostIssue> {
    this.call("editIssue");
    const before = this.issue(index);
    const closing = input.state === "closed" && before.state !== "closed";
    const next: HostIssue = { ...before, ...input, updatedAt: this.now(), ...(closing ? { closedAt: this.now() } : {}) };
    this.issues.set(index, next);
    return this.done("editIssue", this.withCount(next));
  }

  async listComments(_r: RepoRef, index: number, w: CommentWindow = {}): Promise<HostComment[]> {
    this.call("listComments");
    this.issue(index);
    const sec = (ms: number) => Math.floor(ms / 1000);
    const list = (this.comments.get(index) ?? []).filter((c) => {
      const at = sec(Date.parse(c.updatedAt));
      return (w.sinceMs === undefined || at >= sec(w.sinceMs)) && (w.untilMs === undefined || at <= sec(w.untilMs));
    });
    return this.done("listComments", [...list]);
  }
  async getComment(_r: RepoRef, id: number): Promise<HostComment> {
    this.call("getComment");
    return this.done("getComment", this.commentById(id).comment);
  }
  async createComment(_r: RepoRef, index: number, body: string): Promise<HostComment> {
    this.call("createComment");
    this.issue(index);
    return this.done("createComment", this.addComment(index, { body }));
  }
  async editComment(_r: RepoRef, id: number, body: string): Promise<HostComment> {
    this.call("editComment");
    const { list, at, comment } = this.commentById(id);
    const next = { ...comment, body, updatedAt: this.now() };
    list[at] = next;
    return this.done("editComment", next);
  }
  async deleteComment(_r: RepoRef, id: number): Promise<void> {
    this.call("deleteComment");
    const { list, at } = this.commentById(id);
    list.splice(at, 1);
    this.done("deleteComment", undefined);
  }

  async listIssueAttachments(_r: RepoRef, index: number): Promise<HostAttachment[]> {
    this.call("listIssueAttachments");
    this.issue(index);
    return this.done("listIssueAttachments", [...(this.attachments.get(index) ?? [])]);
  }
  async createIssueAttachment(_r: RepoRef, index: number, name: string, bytes: Uint8Array): Promise<HostAttachment> {
    this.call("createIssueAttachment");
    this.issue(index);
    const a = this.upload(name, bytes);
    this.attachments.set(index, [...(this.attachments.get(index) ?? []), a]);
    return this.done("createIssueAttachment", a);
  }
  async listCommentAttachments(_r: RepoRef, id: number): Promise<HostAttachment[]> {
    this.call("listCommentAttachments");
    this.commentById(id);
    return this.done("listCommentAttachments", [...(this.commentAttachments.get(id) ?? [])]);
  }
  async createCommentAttachment(_r: RepoRef, id: number, name: string, bytes: Uint8Array): Promise<HostAttachment> {
    this.call("createCommentAttachment");
    this.commentById(id);
    const a = this.upload(name, bytes);
    this.commentAttachments.set(id, [...(this.commentAttachments.get(id) ?? []), a]);
    return this.done("createCommentAttachment", a);
  }
  private upload(name: string, bytes: Uint8Array): HostAttachment {
    if (!this.capabilities.attachments) throw new HostError("this host has no API to attach a file (capabilities.attachments is false)", "invalid");
    // Forgejo's default [attachment] ALLOWED_TYPES, enforced on every API upload (services/context/upload/upload.go:37-75).
    if (!uploadAllowed(bytes.subarray(0, 1024), name, DEFAULT_ATTACHMENT_ALLOWED_TYPES)) throw new HostError("This file extension or type is not allowed to be uploaded. (422)", "invalid");
    const id = this.ids.next++;
    const a: HostAttachment = { id, name, size: bytes.length, createdAt: this.now(), downloadUrl: `${this.url}/attachments/${id}` };
    this.files.set(a.downloadUrl, Uint8Array.from(bytes));
    return a;
  }
  async downloadAttachment(url: string): Promise<Buffer> {
    this.call("downloadAttachment");
    const bytes = this.files.get(url);
    if (!bytes) throw notFound(`attachment ${url} not found`);
    return this.done("downloadAttachment", Buffer.from(bytes));
  }

  async listLabels(): Promise<HostLabel[]> {
    this.call("listLabels");
    return this.done("listLabels", [...this.labels]);
  }
  async createLabel(_r: RepoRef, input: { name: string; color: string }): Promise<HostLabel> {
    this.call("createLabel");
    const l: HostLabel = { name: input.name, color: input.color };
    this.labels.push(l);
    return this.done("createLabel", l);
  }
  async addIssueLabels(_r: RepoRef, index: number, labels: string[]): Promise<HostLabel[]> {
    this.call("addIssueLabels");
    const i = this.issue(index);
    const add = this.labels.filter((l) => labels.includes(l.name) && !i.labels.some((x) => x.name === l.name));
    const next = { ...i, labels: [...i.labels, ...add] };
    this.issues.set(index, next);
    return this.done("addIssueLabels", next.labels);
  }

  async listHooks(): Promise<FakeHook[]> {
    this.call("listHooks");
    return this.done("listHooks", [...this.hooks]);
  }
  async createHook(_r: RepoRef, input: { type: string; config: Record<string, string>; events: string[]; active: boolean }): Promise<FakeHook> {
    this.call("createHook");
    const h: FakeHook = { id: this.ids.next++, url: input.config["url"] ?? "", ...input, ...(input.config["content_type"] ? { contentType: input.config["content_type"] } : {}) };
    this.hooks.push(h);
    return this.done("createHook", h);
  }
  async deleteHook(_r: RepoRef, id: number): Promise<void> {
    this.call("deleteHook");
    const at = this.hooks.findIndex((h) => h.id === id);
    if (at < 0) throw notFound(`hook ${id} not found`);
    this.hooks.splice(at, 1);
    this.done("deleteHook", undefined);
  }

  async getRepo(r: RepoRef): Promise<HostRepo> {
    this.call("getRepo");
    const mode = this.permissions.get(this.login) ?? "owner";
    const access = mode === "owner" || mode === "admin" ? "admin" : mode === "write" || mode === "read" ? mode : "none";
    return this.done("getRepo", { id: 1, fullName: `${r.owner}/${r.repo}`, private: false, access });
  }
  async listCollaborators(): Promise<HostUser[]> {
    this.call("listCollaborators");
    return this.done(
      "listCollaborators",
      [...this.permissions.keys()].map((login, n) => ({ id: n + 2, login })),
    );
  }
  /**
   * The mode `permissions` gives `user`: "owner" for the token's own user unless set, "none" for a team's
   * member; anyone else is no user of this host (not-found, as a host answers).
   */
  private modeOf(user: string): string {
    const mode = this.permissions.get(user) ?? (user === this.login ? "owner" : this.teams.some((t) => t.members.includes(user.toLowerCase())) ? "none" : undefined);
    if (mode === undefined) throw notFound(`user ${user} not found`);
    return mode;
  }
  async repoAccess(_r: RepoRef, user: string): Promise<RepoAccess> {
    this.call("repoAccess");
    const mode = this.modeOf(user);
    return this.done("repoAccess", mode === "owner" || mode === "admin" ? "admin" : mode === "write" || mode === "read" ? mode : "none");
  }
  /**
   * Teams holding the repository, with their mode on issues and their members (lower-case logins), seeded
   * by tests; `hidden`: the token may not read its members.
   */
  readonly teams: { id: number; name: string; issuesMode: string; members: string[]; hidden?: boolean }[] = [];
  /** A writer (write and above) may; a reader may through a team that may write issues, as Forgejo grants it. */
  async mayCommand(_r: RepoRef, user: string): Promise<IssueWriteAccess> {
    this.call("mayCommand");
    const mode = this.modeOf(user);
    const writes = (m: string) => m === "write" || m === "admin" || m === "owner";
    if (writes(mode) || mode !== "read") return this.done("mayCommand", { canWrite: writes(mode), hiddenGroups: [] });
    const teams = this.teams.filter((t) => writes(t.issuesMode));
    const hiddenGroups = teams.filter((t) => t.hidden).map((t) => t.name);
    const canWrite = teams.some((t) => !t.hidden && t.members.includes(user.toLowerCase()));
    return this.done("mayCommand", { canWrite, hiddenGroups: canWrite ? [] : hiddenGroups });
  }

  // ── The port's intents, each on the primitives above (so `calls` and `after` name those) ──
  async findSessionIssues(r: RepoRef, q: SessionIssueQuery): Promise<HostIssue[]> {
    const all = await this.listAllIssues(r, { state: q.state ?? "open", type: "issues", ...(q.label !== undefined ? { labels: q.label } : {}) });
    return all.filter((i) => q.title === undefined || i.title.includes(q.title));
  }
  async openSessionIssue(r: RepoRef, input: { title: string; body: string; labels?: string[] }): Promise<HostIssue> {
    const labels = input.labels ?? [];
    if (labels.length) {
      const have = new Set((await this.listLabels()).map((l) => l.name));
      for (const name of labels) if (!have.has(name)) await this.createLabel(r, { name, color: "#0075ca" });
    }
    return this.createIssue(r, { title: input.title, body: input.body, ...(labels.length ? { labels } : {}) });
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
  postRecord(r: RepoRef, issue: number, body: string, _opts?: { retry?: boolean }): Promise<HostComment> {
    return this.createComment(r, issue, body);
  }
  editRecord(r: RepoRef, id: number, body: string): Promise<HostComment> {
    return this.editComment(r, id, body);
  }
  deleteRecord(r: RepoRef, id: number): Promise<void> {
    return this.deleteComment(r, id);
  }
  attach(r: RepoRef, to: AttachTarget, name: string, bytes: Uint8Array): Promise<HostAttachment> {
    return "issue" in to ? this.createIssueAttachment(r, to.issue, name, bytes) : this.createCommentAttachment(r, to.comment, name, bytes);
  }
  listAttachments(r: RepoRef, on: AttachTarget): Promise<HostAttachment[]> {
    return "issue" in on ? this.listIssueAttachments(r, on.issue) : this.listCommentAttachments(r, on.comment);
  }
  async ensureWebhook(r: RepoRef, input: { url: string; secret: string; events: readonly WebhookEvent[] }): Promise<{ webhook: HostWebhook; replaced: number[] }> {
    const replaced: number[] = [];
    for (const h of await this.listHooks())
      if (h.url === input.url) {
        await this.deleteHook(r, h.id);
        replaced.push(h.id);
      }
    const webhook = await this.createHook(r, { type: "fake", active: true, events: [...input.events], config: { url: input.url, content_type: "json", secret: input.secret } });
    return { webhook, replaced };
  }
  listWebhooks(): Promise<HostWebhook[]> {
    return this.listHooks();
  }
  removeWebhook(r: RepoRef, id: number): Promise<void> {
    return this.deleteHook(r, id);
  }
}
