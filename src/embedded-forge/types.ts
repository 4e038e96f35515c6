/** Shared types of the embedded Forgejo-compatible server. */
import type { Logger } from "pino";
import type { SignInLimits } from "./sign-in-limit.ts";

/**
 * Access a user has to one repository: Forgejo's perm.AccessMode (models/perm/access_mode.go:13-24), whose
 * String() is what the permission API answers. "owner" is what site admins and the repository's owner get
 * (models/perm/access/repo_permission.go:225-226).
 */
export type AccessMode = "none" | "read" | "write" | "admin" | "owner";

/** A team of an organisation: its AccessMode and its per-unit modes ("issues", "code", "pulls", …). */
export interface TeamRow {
  id: number;
  org_id: number;
  name: string;
  access_mode: AccessMode;
  /** JSON object unit → mode. */
  units: string;
}

/** What a collaboration can hold (AddCollaboratorOption.permission; perm.ParseAccessMode knows no "owner"). */
export type CollaboratorMode = "read" | "write" | "admin";

/** Restricts fault injection to some requests. Empty/undefined lists match everything. */
export interface FaultMatch {
  /** HTTP methods, e.g. ["POST"]. */
  methods?: string[];
  /** Route ids as in FORGE_ROUTES, e.g. "POST /repos/{owner}/{repo}/issues/{index}/comments". */
  routes?: string[];
}

export interface FaultOptions {
  /** Extra delay per API request, in ms. */
  latencyMs?: number;
  /** Cap on response body bytes per second (bodies are streamed in chunks with delays). */
  bandwidthBytesPerSec?: number;
  /** Share (0..1) of requests answered 500/502/503. */
  errorRate?: number;
  /** Share (0..1) of requests answered 429. */
  rateLimitRate?: number;
  /** Retry-After value (seconds) sent with injected 429s; default 1, 0 allowed. */
  retryAfterSec?: number;
  /** Share (0..1) of requests whose connection is destroyed without any response. */
  resetRate?: number;
  /** Share (0..1) of write requests (POST/PATCH/PUT/DELETE) applied, then the socket is destroyed. */
  commitThenDropRate?: number;
  /** Only requests matching this are subject to the random faults and latency/bandwidth. */
  match?: FaultMatch;
}

export type FaultKind = "error500" | "error502" | "error503" | "rateLimit" | "reset" | "commitThenDrop";

export interface ForgeOptions {
  port?: number;
  host?: string;
  /** Directory for forge.sqlite; undefined = in-memory database. */
  dataDir?: string;
  faults?: FaultOptions;
  /** Seed of the fault PRNG (mulberry32). Default 1. */
  seed?: number;
  logger?: Logger;
  /** Webhook delivery timeout in ms (Forgejo: [webhook] DELIVER_TIMEOUT = 5 s). */
  webhookTimeoutMs?: number;
  /** Clock in epoch ms (tests may drive it); default Date.now. */
  clock?: () => number;
  /** Largest request body accepted, in bytes; larger ones get 413. Default 64 MiB. */
  maxBodyBytes?: number;
  /** A request body must arrive within this many ms of the request's start, else 408. Default 60 s. */
  bodyTimeoutMs?: number;
  /** Web sign-in attempts allowed per client IP and per account name in a window (default 10 and 5 a minute); then 429. */
  signInLimits?: Partial<SignInLimits>;
  /**
   * [api] MAX_RESPONSE_ITEMS (default 50): the largest page a list answers. Instances may lower it; clients
   * read it at GET /settings/api, and must follow Link / X-Total-Count rather than assume 50.
   */
  maxResponseItems?: number;
  /**
   * [attachment] ALLOWED_TYPES: extensions (".gz"), MIME types ("application/zip") or wildcards ("image/*"),
   * comma-separated; "*∕*" or "" allows everything. Default: Forgejo's list. Enforced on every upload (422).
   */
  attachmentAllowedTypes?: string;
}

/** Result of a route handler; the server turns it into bytes (or a fault). */
export interface ApiResult {
  status: number;
  /** JSON value (serialised Go-style), a raw string (sent as-is) or undefined for an empty body. */
  json?: unknown;
  raw?: string;
  /** Bytes sent as-is (attachments), with `contentType`. */
  bytes?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * Side effects queued with the response (webhooks). Called before the body is written; `responded`
   * resolves once the response is finished (or the connection was dropped).
   */
  after?: (responded: Promise<void>) => void;
}

export interface UserRow {
  id: number;
  login: string;
  full_name: string;
  email: string;
  is_admin: number;
  created_unix: number;
}

export interface RepoRow {
  id: number;
  owner_id: number;
  name: string;
  description: string;
  private: number;
  created_unix: number;
  updated_unix: number;
}

export interface IssueRow {
  id: number;
  repo_id: number;
  idx: number;
  poster_id: number;
  title: string;
  body: string;
  is_closed: number;
  is_pull: number;
  is_locked: number;
  num_comments: number;
  created_unix: number;
  updated_unix: number;
  closed_unix: number;
  /** Forgejo's issue.content_version: +1 at every body change; a web edit must name the current one. */
  content_version: number;
}

export interface CommentRow {
  id: number;
  issue_id: number;
  poster_id: number;
  body: string;
  created_unix: number;
  updated_unix: number;
  /** Forgejo's comment.content_version: +1 at every UpdateComment, even with the body unchanged. */
  content_version: number;
}

export interface LabelRow {
  id: number;
  repo_id: number;
  name: string;
  color: string;
  description: string;
  exclusive: number;
  is_archived: number;
}

export interface HookRow {
  id: number;
  repo_id: number;
  type: string;
  url: string;
  content_type: string;
  secret: string;
  events: string;
  active: number;
  authorization_header: string;
  branch_filter: string;
  created_unix: number;
  updated_unix: number;
}

export interface DeliveryRecord {
  id: number;
  hookId: number;
  uuid: string;
  event: string;
  eventType: string;
  action: string;
  url: string;
  /** The exact bytes sent. */
  body: string;
  requestHeaders: Record<string, string>;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface ForgeStats {
  requests: Record<string, number>;
  /**
   * API requests per requester (the token's user login, "anonymous" without credentials, "invalid" for
   * credentials that name no user), then per route id: a test that measures one client's requests
   * counts only that client's, never the bot's background work beside it.
   */
  requestsBy: Record<string, Record<string, number>>;
  totalRequests: number;
  bytesSent: number;
  faults: Record<FaultKind, number>;
  deliveries: number;
}

export interface AttachmentRow {
  id: number;
  uuid: string;
  issue_id: number;
  /** 0 for the issue's own attachments. */
  comment_id: number;
  uploader_id: number;
  name: string;
  size: number;
  created_unix: number;
}
