import type { LegacyWriters, LivenessOptions } from "../projection/index.ts";

export interface BotRepo {
  owner: string;
  repo: string;
}

/** A replica's share of a scaled-out bot (docs/scale-out.md). */
export interface DatabaseConfig {
  url: string;
  /** How often the change feed is folded (CHECKPOST_FEED_INTERVAL_MS). */
  feedIntervalMs: number;
  replicaId: string;
}

/** The bot's settings as plain values (tests build them directly). */
export interface BotConfig {
  /** CHECKPOST_HOST: the issue host's adapter, by its name in the host registry (src/hosts/); default forgejo. */
  issueHost?: string;
  /** The issue host's base URL (FORGEJO_URL). */
  forgejoUrl: string;
  token: string;
  repos: BotRepo[];
  title: string;
  label: string;
  trustedAuthors: string[];
  signingKey?: string;
  /** CHECKPOST_LEGACY_WRITERS: a legacy (1.0) writer's checkpoint below a raised fence is a zombie (`fence`, default) or believed (`accept`). */
  legacyWriters?: LegacyWriters;
  /** Required unless `insecure`. */
  webhookSecret?: string;
  insecure: boolean;
  webhookPath: string;
  port: number;
  host: string;
  pollIntervalMs: number;
  /** How often the issue body alone is read (a person's ticks), besides each poll; 0: only with the poll. Default 2000. */
  bodyPollIntervalMs?: number;
  reconcileIntervalMs: number;
  dashboardIntervalMs: number;
  /** Largest resume index kept in the issue body; a larger one is kept in a comment the body points to (default 8 KiB; tests lower it). */
  resumeIndexInlineMaxBytes?: number;
  /** After a person's edit of the body, timed dashboard writes wait this long (ticks on the same page stay valid); default 60 s. */
  dashboardHoldMs?: number;
  livenessIntervalMs: number;
  liveness: Partial<LivenessOptions>;
  staleAlerts: boolean;
  maxWebhookBytes: number;
  /** SQLite file of the ProjectionStore (":memory:" keeps nothing across restarts); ignored when a store is passed to createBot. */
  storeFile: string;
  /** Writer lease TTL (ms). */
  leaseTtlMs: number;
  /** Live comments at which a session issue rolls over to a successor (0: never). */
  rolloverAt: number;
  /** Superseded health signals older than this are archived and deleted (0: never). */
  healthRetentionMs: number;
  /** How often the writer looks for health signals to compact. */
  compactionIntervalMs: number;
  /** Bearer tokens accepted on /api/* and /metrics (CHECKPOST_API_TOKEN); empty: /api/* answers 401 to everyone. */
  apiTokens: string[];
  /** Issues with more comments are read in windows (see readAllComments); default 2,000. */
  readWindowSize?: number;
  retries: number;
  timeoutMs: number;
  /** CHECKPOST_DOCS_URL: where the dashboard's help links point (a folder holding checkpost's docs/*.md); unset: no link. */
  docsUrl?: string;
  /** Several replicas on one PostgreSQL (CHECKPOST_DATABASE_URL); unset: this process alone. */
  database?: DatabaseConfig;
}
