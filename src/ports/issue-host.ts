/**
 * The issue host port: what checkpost needs from the server that holds the session issue, by intent
 * (find the session issue, list comments since, post or edit a record, read and write the dashboard body,
 * attach, check who may command, verify a delivery). Forgejo's adapter is src/forgejo-client/; a host with
 * GitHub's behaviour (test/helpers/github-host/) proves the port takes a second one. Records are neutral
 * and camelCase (src/ports/host-records.ts); each adapter validates its host's answers with zod and maps
 * its field names, so nothing outside it reads the host's wire format. Types only: importing this module
 * runs no code.
 */
import type { Logger } from "pino";
import type {
  AttachTarget,
  CommentWindow,
  HostAttachment,
  HostCapabilities,
  HostComment,
  HostIssue,
  HostLabel,
  HostRepo,
  HostUser,
  HostWebhook,
  IssueBody,
  IssueWriteAccess,
  RepoAccess,
  RepoRef,
  SessionIssueQuery,
  WebhookEvent,
} from "./host-records.ts";

export type * from "./host-records.ts";

/**
 * The port by intent (issue 31, item 1): each method says what checkpost needs from the host, not which
 * endpoint serves it. An adapter maps each onto its host's API; a caller never names a host's route,
 * field, hook type or permission string.
 */
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

  // ── The session issue ──
  /** The issues (never pull requests) matching `q`, every page read, newest first. */
  findSessionIssues(r: RepoRef, q: SessionIssueQuery): Promise<HostIssue[]>;
  /** Open an issue; each label is ensured by name first (created when the repository lacks it). */
  openSessionIssue(r: RepoRef, input: { title: string; body: string; labels?: string[] }): Promise<HostIssue>;
  /**
   * Put labels the repository has on an issue, by name; answers the issue's labels. Not ensured here (a
   * name the repository lacks may be dropped by the host): openSessionIssue ensures the session label.
   */
  labelIssue(r: RepoRef, issue: number, labels: string[]): Promise<HostLabel[]>;
  /** One issue as it is now (its state, labels, closing time: a chain walk, a doctor check). */
  readIssue(r: RepoRef, issue: number): Promise<HostIssue>;
  closeIssue(r: RepoRef, issue: number): Promise<HostIssue>;

  // ── The dashboard body ──
  /** The issue's body ("" when none), when the issue last changed, and who opened it (no host says who edited a body last). */
  readIssueBody(r: RepoRef, issue: number): Promise<IssueBody>;
  /**
   * Replace the issue's body. NOT a compare-and-set: neither Forgejo's API nor GitHub's can write a body
   * only if unchanged since read (`capabilities.compareAndSetBody` is false on both), so a person's edit
   * between a read and this write is lost unless the writer re-reads after writing and merges again
   * (src/bot/upkeep/dashboard-writer.ts does).
   */
  writeIssueBody(r: RepoRef, issue: number, body: string): Promise<IssueBody>;

  // ── Records (comments) ──
  /** The issue's comments, oldest first: all of them, or those updated within `window`. */
  listCommentsSince(r: RepoRef, issue: number, window?: CommentWindow): Promise<HostComment[]>;
  /** One comment by id (HostError not-found when deleted). */
  readRecord(r: RepoRef, id: number): Promise<HostComment>;
  /** Post a comment. retry:false for callers that make the POST exactly-once themselves. */
  postRecord(r: RepoRef, issue: number, body: string, opts?: { retry?: boolean }): Promise<HostComment>;
  editRecord(r: RepoRef, id: number, body: string): Promise<HostComment>;
  deleteRecord(r: RepoRef, id: number): Promise<void>;

  // ── Attachments (capabilities.attachments; a host without lists none and refuses writes) ──
  /** Attach a file to the issue or a comment. Not retried: a retry after a lost answer would upload twice. */
  attach(r: RepoRef, to: AttachTarget, name: string, bytes: Uint8Array, contentType?: string): Promise<HostAttachment>;
  listAttachments(r: RepoRef, on: AttachTarget): Promise<HostAttachment[]>;
  /** The bytes of an attachment, by its `downloadUrl` (same host, same token). */
  downloadAttachment(url: string): Promise<Buffer>;

  // ── Who may do what ──
  /** The repository, with the token user's access to it. */
  getRepo(r: RepoRef): Promise<HostRepo>;
  /** Every collaborator, all pages. */
  listCollaborators(r: RepoRef): Promise<HostUser[]>;
  /** The user's access to the repository (HostError not-found: no such user; forbidden: the token may not ask). */
  repoAccess(r: RepoRef, user: string): Promise<RepoAccess>;
  /**
   * Whether the user may command the bot: may write the repository's issues, however the host grants it
   * (a collaborator's role, a team's rights on issues). Errors as repoAccess.
   */
  mayCommand(r: RepoRef, user: string): Promise<IssueWriteAccess>;

  // ── Webhooks ──
  /**
   * Make one active webhook deliver `events` to `url`, signed with `secret`: hooks already delivering to
   * `url` are replaced (their ids in `replaced`). The host's hook kind and content type are the adapter's.
   */
  ensureWebhook(r: RepoRef, input: { url: string; secret: string; events: readonly WebhookEvent[] }): Promise<{ webhook: HostWebhook; replaced: number[] }>;
  /** Every webhook of the repository (repository admins only, on most hosts). */
  listWebhooks(r: RepoRef): Promise<HostWebhook[]>;
  removeWebhook(r: RepoRef, id: number): Promise<void>;
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
  /**
   * Why a webhook delivery is not authentic, or null when it is: the host says which header carries its
   * signature and how it is made. `headers` as node:http gives them (lower-case names).
   */
  verifyDelivery(headers: DeliveryHeaders, rawBody: Buffer | string, secret: string): string | null;
  /** The adapter, the API root its webhook deliveries name the instance by, its payload reader and verifier. */
  open(settings: HostSettings): OpenedHost;
}

/** Request headers as node:http gives them: lower-case names. */
export type DeliveryHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A host opened by its HostDefinition. */
export interface OpenedHost {
  api: IssueHost;
  apiUrl: string;
  readDelivery: ReadDelivery;
  verifyDelivery: HostDefinition["verifyDelivery"];
}
