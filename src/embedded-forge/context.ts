/** Per-server and per-request context handed to route handlers. */
import type { Logger } from "pino";
import type { Renderer } from "./convert.ts";
import type { ForgeStore } from "./store-sqlite.ts";
import type { ApiResult, UserRow } from "./types.ts";
import type { WebhookDispatcher } from "./webhooks.ts";

export interface ForgeContext extends Renderer {
  store: ForgeStore;
  baseUrl: string;
  logger: Logger;
  webhooks: WebhookDispatcher;
  /** Current time in unix seconds (Forgejo's timeutil.TimeStampNow). */
  nowUnix(): number;
  /** [api] MAX_RESPONSE_ITEMS: the page-size cap of every paged list. */
  maxResponseItems: number;
  /** [attachment] ALLOWED_TYPES (upload-verify.ts). */
  attachmentAllowedTypes: string;
  /** Points inside a request where a test may act (ForgeAdmin.setSeams): races a real Forgejo can have. */
  seams: ForgeSeams;
}

export interface ForgeSeams {
  /**
   * After an upload's attachment row is stored and before the or comment's content is saved again
   * (the window of issue_attachment.go:206-225): a body edit made here makes that save fail, as in Forgejo.
   */
  afterAttachmentStored?: (attachmentId: number) => void;
}

export interface RequestContext {
  forge: ForgeContext;
  method: string;
  url: URL;
  params: Record<string, string>;
  doer: UserRow | null;
  /** Parsed JSON body (undefined when none). */
  body: unknown;
  /** Files of a multipart/form-data body. */
  files?: { field: string; filename: string; data: Buffer }[];
}

export type RouteHandler = (ctx: RequestContext) => ApiResult;
