import { hostname } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { ClientEnvSchema, parseEnv, repoFromEnv } from "./env.ts";
import { ConfigError } from "../errors.ts";
import { parseDuration } from "../util/parse-duration.ts";
import type { BotConfig, BotRepo } from "../bot/bot-config.ts";

const ms = (def: number) => z.coerce.number().int().min(0).default(def);
const flag = z
  .enum(["1", "0", "true", "false", "yes", "no"])
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");

/** Everything the bot reads from env; .env.example lists each with a comment. */
export const BotEnvSchema = ClientEnvSchema.extend({
  /** Comma-separated owner/repo list to watch (or FORGEJO_REPO for one). */
  CHECKPOST_REPOSITORIES: z.string().optional(),
  WEBHOOK_SECRET: z.string().min(8, "must be at least 8 characters").optional(),
  /** Accept unsigned deliveries: local development only. */
  CHECKPOST_INSECURE_NO_WEBHOOK_SECRET: flag,
  WEBHOOK_PATH: z.string().startsWith("/").default("/api/github/webhooks"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  /** Incremental poll every N ms (0: off; webhooks only). */
  CHECKPOST_POLL_INTERVAL_MS: ms(30_000),
  /**
   * Read the issue body alone every N ms (0: only with each poll): a person's tick is then recorded within
   * about this long even when webhooks do not reach the bot. One GET of the issue per watched issue. Off
   * when CHECKPOST_POLL_INTERVAL_MS=0 (webhooks only).
   */
  CHECKPOST_BODY_POLL_INTERVAL_MS: ms(2_000),
  /** Full re-read (notices deletions) every N ms (0: off). */
  CHECKPOST_RECONCILE_INTERVAL_MS: ms(300_000),
  /** At most one dashboard write per window: 4 s, so an agent's first save is on the dashboard within about 5 s. */
  CHECKPOST_DASHBOARD_INTERVAL_MS: ms(4_000),
  /** After a person's edit of the issue body, dashboard writes wait this long (their next tick stays valid). */
  CHECKPOST_DASHBOARD_HOLD_MS: ms(60_000),
  /** Liveness check period. */
  CHECKPOST_LIVENESS_INTERVAL_MS: ms(15_000),
  /** Fixed stale threshold; unset: derived from each agent's own cadence. */
  CHECKPOST_STALE_AFTER_MS: z.coerce.number().int().positive().optional(),
  /** Floor of the derived stale threshold. */
  CHECKPOST_MIN_STALE_MS: ms(300_000),
  /** Post one alert comment when an agent turns Stale or Silent. */
  CHECKPOST_STALE_ALERTS: flag,
  CHECKPOST_MAX_WEBHOOK_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Data directory of the embedded Forgejo used when FORGEJO_URL is unset. */
  CHECKPOST_DATA_DIR: z.string().default(".data"),
  /** The bot's durable store (SQLite file); default <CHECKPOST_DATA_DIR>/bot/projection.sqlite. */
  CHECKPOST_STORE_FILE: z.string().min(1).optional(),
  /** How long a session issue's writer lease lasts unless renewed (renewed every third of it). */
  CHECKPOST_LEASE_TTL_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Roll the session issue over to a successor at this many comments (0: never). See docs/retention.md. */
  CHECKPOST_ROLLOVER_AT: z.coerce.number().int().min(0).default(1000),
  /** Archive and delete superseded health signals older than this: "24h", "90m", "3600s", ms, or "off". */
  CHECKPOST_HEALTH_RETENTION: z
    .string()
    .default("24h")
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === null) ctx.addIssue({ code: "custom", message: 'must be a duration like "24h", "90m", "3600s", a number of milliseconds, or "off"' });
      return ms ?? 0;
    }),
  /** How often the writer compacts (ms). */
  CHECKPOST_COMPACTION_INTERVAL_MS: z.coerce.number().int().min(1000).default(3_600_000),
  /** Port of the embedded Forgejo (0: random). */
  CHECKPOST_FORGE_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** Shared PostgreSQL store for several replicas (docs/scale-out.md); replaces the SQLite file. Unset: one process. */
  CHECKPOST_DATABASE_URL: z
    .string()
    .regex(/^postgres(?:ql)?:\/\/\S+$/, "must be a postgres://user:password@host:port/database URL")
    .optional(),
  /** With a database: how often (ms) a replica folds what the other replicas stored. */
  CHECKPOST_FEED_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  /**
   * Where the dashboard's help links point: a folder URL holding checkpost's docs/*.md, e.g. the bot's own
   * the docs/ folder of your clone of checkpost in your Forgejo's web view
   * (https://forgejo.example.org/acme/checkpost/src/branch/main/docs). Unset: the dashboard names the file.
   */
  CHECKPOST_DOCS_URL: z.url({ message: "must be a URL of a folder holding checkpost's docs, e.g. https://forgejo.example.org/acme/checkpost/src/branch/main/docs" }).optional(),
  /** With a database: this replica's name in leases and logs (default: host name and process id). */
  CHECKPOST_REPLICA_ID: z.string().min(1).optional(),
});
export type BotEnv = z.infer<typeof BotEnvSchema>;

/** Parse and cross-check the bot's env; errors name the variable. */
export function loadBotEnv(env: NodeJS.ProcessEnv): BotEnv {
  const e = parseEnv(BotEnvSchema, env);
  if (!e.WEBHOOK_SECRET && !e.CHECKPOST_INSECURE_NO_WEBHOOK_SECRET)
    throw new ConfigError(
      "WEBHOOK_SECRET is required (the same secret as in the Forgejo webhook). For local development only, set CHECKPOST_INSECURE_NO_WEBHOOK_SECRET=1 to accept unsigned deliveries.",
    );
  return e;
}

/** The repositories to watch, from CHECKPOST_REPOSITORIES or FORGEJO_REPOSITORY / FORGEJO_REPO=owner/name / FORGEJO_OWNER+FORGEJO_REPO. */
export function botRepos(e: BotEnv): BotRepo[] {
  const single = e.FORGEJO_REPOSITORY || e.FORGEJO_REPO || e.FORGEJO_OWNER ? repoFromEnv(e) : undefined;
  const list = e.CHECKPOST_REPOSITORIES ?? (single ? `${single.owner}/${single.repo}` : "");
  const repos = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [owner, repo, extra] = s.split("/");
      if (!owner || !repo || extra !== undefined) throw new ConfigError(`CHECKPOST_REPOSITORIES: "${s}" must be owner/repo`);
      return { owner, repo };
    });
  if (!repos.length) throw new ConfigError("no repository to watch: set CHECKPOST_REPOSITORIES=owner/repo[,owner/repo…] (or FORGEJO_REPO=owner/repo)");
  return repos;
}

/** The bot's settings from its parsed env and the Forgejo it talks to. */
export function botConfigFromEnv(e: BotEnv, forgejo: { url: string; token: string }): BotConfig {
  return {
    issueHost: e.CHECKPOST_HOST,
    forgejoUrl: forgejo.url,
    token: forgejo.token,
    repos: botRepos(e),
    title: e.CHECKPOST_SESSION_TITLE,
    label: e.CHECKPOST_SESSION_LABEL,
    trustedAuthors: e.CHECKPOST_TRUSTED_AUTHORS,
    ...(e.CHECKPOST_SIGNING_KEY ? { signingKey: e.CHECKPOST_SIGNING_KEY } : {}),
    legacyWriters: e.CHECKPOST_LEGACY_WRITERS,
    ...(e.WEBHOOK_SECRET ? { webhookSecret: e.WEBHOOK_SECRET } : {}),
    insecure: e.CHECKPOST_INSECURE_NO_WEBHOOK_SECRET,
    webhookPath: e.WEBHOOK_PATH,
    port: e.PORT,
    host: e.HOST,
    pollIntervalMs: e.CHECKPOST_POLL_INTERVAL_MS,
    bodyPollIntervalMs: e.CHECKPOST_BODY_POLL_INTERVAL_MS,
    reconcileIntervalMs: e.CHECKPOST_RECONCILE_INTERVAL_MS,
    dashboardIntervalMs: e.CHECKPOST_DASHBOARD_INTERVAL_MS,
    dashboardHoldMs: e.CHECKPOST_DASHBOARD_HOLD_MS,
    livenessIntervalMs: e.CHECKPOST_LIVENESS_INTERVAL_MS,
    liveness: { minStaleMs: e.CHECKPOST_MIN_STALE_MS, ...(e.CHECKPOST_STALE_AFTER_MS ? { staleAfterMs: e.CHECKPOST_STALE_AFTER_MS } : {}) },
    staleAlerts: e.CHECKPOST_STALE_ALERTS,
    maxWebhookBytes: e.CHECKPOST_MAX_WEBHOOK_BYTES,
    storeFile: e.CHECKPOST_STORE_FILE ?? join(e.CHECKPOST_DATA_DIR, "bot", "projection.sqlite"),
    leaseTtlMs: e.CHECKPOST_LEASE_TTL_MS,
    rolloverAt: e.CHECKPOST_ROLLOVER_AT,
    healthRetentionMs: e.CHECKPOST_HEALTH_RETENTION,
    compactionIntervalMs: e.CHECKPOST_COMPACTION_INTERVAL_MS,
    apiTokens: e.CHECKPOST_API_TOKEN,
    ...(e.CHECKPOST_DOCS_URL ? { docsUrl: e.CHECKPOST_DOCS_URL } : {}),
    retries: e.CHECKPOST_RETRIES,
    timeoutMs: e.CHECKPOST_REQUEST_TIMEOUT_MS,
    ...(e.CHECKPOST_DATABASE_URL
      ? { database: { url: e.CHECKPOST_DATABASE_URL, feedIntervalMs: e.CHECKPOST_FEED_INTERVAL_MS, replicaId: e.CHECKPOST_REPLICA_ID ?? `${hostname()}-${process.pid}` } }
      : {}),
  };
}

/**
 * A BotConfig with every default the env schema declares, for code that embeds
 * the bot (tests, benchmarks): the defaults live in one place, BotEnvSchema.
 */
export function defaultBotConfig(forgejo: { url: string; token: string }, repos: BotRepo[]): BotConfig {
  const config = botConfigFromEnv(parseEnv(BotEnvSchema, { CHECKPOST_REPOSITORIES: repos.map((r) => `${r.owner}/${r.repo}`).join(",") }), forgejo);
  // Embedders choose where state goes (by default nothing is written to the working directory) and opt in
  // to what changes the issue beyond the dashboard: rollover and compaction are off here, on in `npm start`.
  return { ...config, storeFile: ":memory:", rolloverAt: 0, healthRetentionMs: 0 };
}
