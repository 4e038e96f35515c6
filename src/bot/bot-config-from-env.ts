import type { LivenessOptions } from "../projection/index.ts";
import { parseEnv } from "../config/env.ts";
import { BotEnvSchema, botRepos } from "./bot-config.ts";
import type { BotEnv, BotRepo } from "./bot-config.ts";

/** The bot's settings as plain values (tests build them directly). */
export interface BotConfig {
  forgejoUrl: string;
  token: string;
  repos: BotRepo[];
  title: string;
  label: string;
  trustedAuthors: string[];
  signingKey?: string;
  /** Required unless `insecure`. */
  webhookSecret?: string;
  insecure: boolean;
  webhookPath: string;
  port: number;
  host: string;
  pollIntervalMs: number;
  reconcileIntervalMs: number;
  dashboardIntervalMs: number;
  livenessIntervalMs: number;
  liveness: Partial<LivenessOptions>;
  staleAlerts: boolean;
  maxWebhookBytes: number;
  /** Issues with more comments are read in windows (see readAllComments); default 2,000. */
  readWindowSize?: number;
  retries: number;
  timeoutMs: number;
}

export function botConfigFromEnv(e: BotEnv, forgejo: { url: string; token: string }): BotConfig {
  return {
    forgejoUrl: forgejo.url,
    token: forgejo.token,
    repos: botRepos(e),
    title: e.CHECKPOST_SESSION_TITLE,
    label: e.CHECKPOST_SESSION_LABEL,
    trustedAuthors: e.CHECKPOST_TRUSTED_AUTHORS,
    ...(e.CHECKPOST_SIGNING_KEY ? { signingKey: e.CHECKPOST_SIGNING_KEY } : {}),
    ...(e.WEBHOOK_SECRET ? { webhookSecret: e.WEBHOOK_SECRET } : {}),
    insecure: e.CHECKPOST_INSECURE_NO_WEBHOOK_SECRET,
    webhookPath: e.WEBHOOK_PATH,
    port: e.PORT,
    host: e.HOST,
    pollIntervalMs: e.CHECKPOST_POLL_INTERVAL_MS,
    reconcileIntervalMs: e.CHECKPOST_RECONCILE_INTERVAL_MS,
    dashboardIntervalMs: e.CHECKPOST_DASHBOARD_INTERVAL_MS,
    livenessIntervalMs: e.CHECKPOST_LIVENESS_INTERVAL_MS,
    liveness: { minStaleMs: e.CHECKPOST_MIN_STALE_MS, ...(e.CHECKPOST_STALE_AFTER_MS ? { staleAfterMs: e.CHECKPOST_STALE_AFTER_MS } : {}) },
    staleAlerts: e.CHECKPOST_STALE_ALERTS,
    maxWebhookBytes: e.CHECKPOST_MAX_WEBHOOK_BYTES,
    retries: e.CHECKPOST_RETRIES,
    timeoutMs: e.CHECKPOST_REQUEST_TIMEOUT_MS,
  };
}

/**
 * A BotConfig with every default the env schema declares, for code that embeds
 * the bot (tests, benchmarks): the defaults live in one place, BotEnvSchema.
 */
export function defaultBotConfig(forgejo: { url: string; token: string }, repos: BotRepo[]): BotConfig {
  return botConfigFromEnv(parseEnv(BotEnvSchema, { CHECKPOST_REPOSITORIES: repos.map((r) => `${r.owner}/${r.repo}`).join(",") }), forgejo);
}
