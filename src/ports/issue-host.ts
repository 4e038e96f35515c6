/**
 * The issue host port: what checkpost needs from the server that holds the session issue (Forgejo
 * today, src/forgejo-client/ is the adapter). Records are neutral and camelCase; the adapter validates the
 * host's answers with zod and maps its field names, so nothing outside the adapter reads the host's
 * wire format. Types only: importing this module runs no code.
 */
import type { Logger } from "pino";

/** owner/repo of the repository holding the session issue. */
export interface RepoRef {
  owner: string;
  repo: string;
}

export interface HostUser {
  id: number;
  login: string;
  /** A site administrator (set when the host says so; absent otherwise). */
  isAdmin?: boolean;
}

/** A label, known by its name (hosts number labels differently, or not at all). */
export interface HostLabel {
  name: string;
  color?: string;
}

export interface HostIssue {
  id: number;
  number: number;
  title: string;
  /** "" when the issue has no body. */
  body: string;
  state: string;
  htmlUrl: string;
  /** The login of who opened it. */
  author: string;
  labels: HostLabel[];
  /** How many comments the issue has, when the host says. */
  commentCount?: number;
  createdAt: string;
  updatedAt: string;
  /** Set while the issue is closed; a chain walk reads the tail of comments from it. */
  closedAt?: string | null;
  /** The host lists pull requests among issues unless asked not to. */
  isPullRequest: boolean;
}

export interface HostComment {
  id: number;
  body: string;
  /** The login of who wrote it. */
  author: string;
  htmlUrl: string;
  /** The web URL of the issue it is on ("" for a pull request; absent when the host does not say). */
  issueUrl?: string;
  createdAt: string;
  updatedAt: string;
}

export interface HostAttachment {
  id: number;
  name: string;
  size: number;
  createdAt: string;
  /** Where its bytes are (same host, same token): pass to `downloadAttachment`. */
  downloadUrl: string;
}

export interface HostHook {
  id: number;
  type: string;
  active: boolean;
  events: string[];
  config?: Record<string, string>;
}

/** A user's access to a repository, in the port's words: an owner reads as "admin". */
export type RepoAccess = "admin" | "write" | "read" | "none";

/** Whether a user may write a repository's issues (so may command the bot), as far as the token can tell. */
export interface IssueWriteAccess {
  canWrite: boolean;
  /**
   * Groups (teams) that may write issues but whose members the token may not read: a user refused may be
   * in one of them. Empty when the answer is certain.
   */
  hiddenGroups: string[];
}

export interface HostRepo {
  id: number;
  fullName: string;
  private: boolean;
  /** The token user's access to it, when signed in. */
  access?: RepoAccess;
}

export type IssueState = "open" | "closed" | "all";
export interface IssueQuery {
  state?: IssueState;
  /** Comma-separated label names, AND-ed. */
  labels?: string;
  /** Free-text search. */
  q?: string;
  type?: "issues" | "pulls";
}
/**
 * A window of a comment list on the UPDATED time, in ms since the epoch; the host compares whole
 * seconds and includes both ends, so callers dedupe what a boundary second returns twice.
 */
export interface CommentWindow {
  /** Updated at or after. */
  sinceMs?: number;
  /** Updated at or before (an adapter whose host cannot bound a list above filters the answer itself). */
  untilMs?: number;
}

/**
 * What a host can and cannot do, as flags (issue 31): code that needs a feature asks here, never which
 * host it is talking to. A suite case that needs a feature is skipped by the flag, never by host name.
 */
export interface HostCapabilities {
  /** The host keeps a comment's earlier bodies, so an edited record can be audited (Forgejo, GitHub: yes). */
  editHistory: boolean;
  /** Files can be attached to an issue through the API: compaction's archives, snapshots (Forgejo: yes; GitHub: no). */
  attachments: boolean;
  /** A token can be limited to the one repository (Forgejo 13: no, its scopes are by kind; GitHub's fine-grained tokens: yes). */
  repositoryScopedTokens: boolean;
  /** An issue's comment list comes in pages the adapter follows (GitHub: per_page ≤ 100 and Link); Forgejo answers it whole. */
  pagedCommentLists: boolean;
  /** A comment list can be bounded above by updated time (`CommentWindow.untilMs`), not only below (GitHub: `since` only). */
  commentsUntil: boolean;
  /** A body can be written only if unchanged since it was read. Neither Forgejo nor GitHub: writers re-read instead. */
  compareAndSetBody: boolean;
}

export interface IssueHost {
  /** What this host can do (see HostCapabilities). */
  readonly capabilities: HostCapabilities;
  /** The host's clock minus ours, in ms, as learnt from its answers (0 until one came). */
  readonly serverClockOffsetMs: number;
  /** Requests sent so far, attempts included. */
  readonly requestCount: number;
  /** Run `fn` under the host's retry policy (transient failures are tried again). */
  withRetry<T>(fn: (attemptNumber: number) => Promise<T>, label?: string): Promise<T>;
  /** Whether `error` leaves it unknown if a write happened (no answer, or a 5xx after sending). */
  isOutcomeUnknown(error: unknown): boolean;

  version(): Promise<string>;
  currentUser(): Promise<HostUser>;

  listIssues(r: RepoRef, q?: IssueQuery & { page?: number; limit?: number }): Promise<{ issues: HostIssue[]; totalCount: number | null }>;
  /** Every issue matching `q`, all pages. */
  listAllIssues(r: RepoRef, q?: IssueQuery): Promise<HostIssue[]>;
  getIssue(r: RepoRef, index: number): Promise<HostIssue>;
  /** `labels`: names of labels the repository has (listLabels, createLabel). */
  createIssue(r: RepoRef, input: { title: string; body?: string; labels?: string[] }): Promise<HostIssue>;
  editIssue(r: RepoRef, index: number, input: { title?: string; body?: string; state?: "open" | "closed" }): Promise<HostIssue>;

  /** Every comment of an issue, or those updated within `window`. */
  listComments(r: RepoRef, index: number, window?: CommentWindow): Promise<HostComment[]>;
  getComment(r: RepoRef, id: number): Promise<HostComment>;
  /** retry:false for callers that make the POST exactly-once themselves. */
  createComment(r: RepoRef, index: number, body: string, opts?: { retry?: boolean }): Promise<HostComment>;
  editComment(r: RepoRef, id: number, body: string): Promise<HostComment>;
  deleteComment(r: RepoRef, id: number): Promise<void>;

  listIssueAttachments(r: RepoRef, index: number): Promise<HostAttachment[]>;
  /** Not retried: a retry after a lost answer would upload twice. */
  createIssueAttachment(r: RepoRef, index: number, name: string, bytes: Uint8Array, contentType?: string): Promise<HostAttachment>;
  downloadAttachment(url: string): Promise<Buffer>;

  /** Every label of the repository, all pages. */
  listLabels(r: RepoRef): Promise<HostLabel[]>;
  createLabel(r: RepoRef, input: { name: string; color: string; description?: string }): Promise<HostLabel>;
  /** Add labels by name (the repository has them); answers the issue's labels. */
  addIssueLabels(r: RepoRef, index: number, labels: string[]): Promise<HostLabel[]>;

  /** Every webhook of the repository, all pages. */
  listHooks(r: RepoRef): Promise<HostHook[]>;
  createHook(r: RepoRef, input: { type: string; config: Record<string, string>; events: string[]; active: boolean }): Promise<HostHook>;
  deleteHook(r: RepoRef, id: number): Promise<void>;

  /** The repository, with the token user's permissions on it. */
  getRepo(r: RepoRef): Promise<HostRepo>;
  /** Every collaborator, all pages. */
  listCollaborators(r: RepoRef): Promise<HostUser[]>;
  /** The user's access to the repository (HostError not-found: no such user; forbidden: the token may not ask). */
  repoAccess(r: RepoRef, user: string): Promise<RepoAccess>;
  /**
   * Whether the user may write the repository's issues, however the host grants it (a collaborator's
   * role, a team's rights on issues): who may command the bot. Errors as repoAccess.
   */
  issueWriteAccess(r: RepoRef, user: string): Promise<IssueWriteAccess>;
}

/** The issue a webhook delivery is about, as the delivery carries it. */
export interface DeliveredIssue {
  number: number;
  title: string;
  /** null when the payload has no body. */
  body: string | null;
  state: string;
  labels: HostLabel[];
  isPullRequest: boolean;
  /** Who opened it, when the payload says. */
  author: string | null;
  /** When it last changed, when the payload says (a tick's once-key). */
  updatedAt: string | null;
}

/**
 * A webhook delivery the bot acts on, in the port's words: each host's adapter maps its own payloads
 * (Forgejo's: src/forgejo-client/webhook-payloads.ts), so the bot reads no host's field names.
 */
export type HostDelivery =
  | {
      event: "comment";
      action: "created" | "edited" | "deleted";
      repo: RepoRef;
      issue: DeliveredIssue;
      comment: { id: number; author: string; body: string; createdAt: string; updatedAt: string; htmlUrl?: string };
      sender: string;
      /** The comment is on a pull request's conversation. */
      onPullRequest: boolean;
    }
  | {
      event: "issue";
      action: string;
      repo: RepoRef;
      issue: DeliveredIssue;
      sender: string;
      /** On "edited": the body before this edit, when the host sends it. */
      bodyBefore?: string;
    };

/**
 * Read a verified delivery's parsed payload: the neutral record; `{ invalid }` (the first problem, for
 * the log) when it does not have the shape the host sends; null for an event the bot does not read.
 */
export type ReadDelivery = (event: string, payload: unknown) => HostDelivery | { invalid: unknown } | null;

/** Where an issue host is and how to talk to it, from configuration (CHECKPOST_HOST picks the adapter). */
export interface HostSettings {
  /** The instance's base URL (FORGEJO_URL; each adapter adds its own API path). */
  url: string;
  /** The access token, sent as the host wants it. */
  token?: string;
  /** Injected fetch (tests, instrumentation; the bot passes node:http). */
  fetch?: typeof globalThis.fetch;
  logger?: Pick<Logger, "debug" | "warn">;
  /** Retries after the first attempt, for transient failures. */
  retries?: number;
  /** Per-attempt timeout, ms. */
  timeoutMs?: number;
}

/**
 * One entry of the host registry (src/hosts/index.ts): what the host can do, and how to open it. A new
 * host is a folder exporting one of these, plus one line in the registry (Renovate's platform map).
 */
export interface HostDefinition {
  /** The name CHECKPOST_HOST selects it by, e.g. "forgejo". */
  readonly name: string;
  readonly capabilities: HostCapabilities;
  /** The adapter, the API root its webhook deliveries name the instance by, and its payload reader. */
  open(settings: HostSettings): { api: IssueHost; apiUrl: string; readDelivery: ReadDelivery };
}
