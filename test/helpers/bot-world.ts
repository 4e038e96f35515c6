import { startForge } from "../../src/embedded-forge/index.ts";
import type { ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import { startBot } from "../../src/app/start-bot.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import type { BotConfig } from "../../src/bot/bot-config.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";
import { Writable } from "node:stream";
import type { Logger } from "pino";
import type { StartBotDeps } from "../../src/app/start-bot.ts";
import type { HostCapabilities } from "../../src/ports/issue-host.ts";
import { FORGEJO_CAPABILITIES } from "../../src/forgejo-client/index.ts";
import { type GitHubOverForge, githubOverForge } from "./github-host/github-over-forge.ts";

/**
 * The host the bot talks to in these suites: CHECKPOST_TEST_HOST=github puts it behind the GitHub-behaviour
 * adapter over the same forge (github-over-forge.ts; `npm run test:github`); default forgejo.
 */
export const TEST_HOST: "forgejo" | "github" = process.env["CHECKPOST_TEST_HOST"]?.trim().toLowerCase() === "github" ? "github" : "forgejo";

export const SECRET = "test-webhook-secret-123";
/** The bot API's bearer token in tests (CHECKPOST_API_TOKEN). */
export const API_TOKEN = "test-api-token-0123456789abcdef";

export interface BotWorld {
  forge: ForgeServer;
  bot: Bot;
  /** The config the bot was started with (to start another on the same forge). */
  config: BotConfig;
  logger: Logger;
  repo: { owner: string; repo: string };
  issue: number;
  botToken: string;
  agentToken: string;
  malloryToken: string;
  api(token: string): ForgejoApi;
  /** GET (or HEAD) on the bot with the API token. */
  botFetch(path: string, init?: RequestInit): Promise<Response>;
  /** Moves the bot's clock forward (liveness), never the forge's. */
  advance(ms: number): void;
  /** Webhook deliveries done and handled, dashboards written. */
  settle(): Promise<void>;
  logs: string[];
  /** Which host the bot talks to (TEST_HOST), and what it can do: cases skip by capability (itNeeds). */
  host: "forgejo" | "github";
  capabilities: HostCapabilities;
  /** The GitHub surface over this forge, when host is "github". */
  github?: GitHubOverForge;
  /** A webhook URL reaching `target` the way the host delivers (through GitHub's headers on "github"). */
  hookUrl(target: string): string;
  /** startBot with the world's host (another bot on the same forge: a restart, a replica). */
  startBot(config: BotConfig, deps: StartBotDeps): Promise<Bot>;
  close(): Promise<void>;
}

/** The embedded Forgejo plus the bot on random loopback ports, webhook wired, timers off (tests drive them). */
/** Bot timers off: tests drive polls, reconciles, liveness and dashboard writes themselves. */
export const TIMERS_OFF = { pollIntervalMs: 0, bodyPollIntervalMs: 0, reconcileIntervalMs: 0, dashboardIntervalMs: 0, livenessIntervalMs: 0 } as const satisfies Partial<BotConfig>;

/** `org`: the repository belongs to this organisation (teams), with the agent as its admin collaborator; else to the agent. */
/** `host`: the host the bot talks to (default TEST_HOST, from CHECKPOST_TEST_HOST). */
/** `botAdmin`: the bot is a repository admin (as docs/deploy.md has it), so it may read the writers' permissions; `writers`: more users with write access, made before the bot starts. */
export async function botWorld(
  overrides: Partial<BotConfig> = {},
  opts: { webhook?: boolean; issueAuthor?: string; org?: string; botAdmin?: boolean; writers?: string[]; host?: "forgejo" | "github" } = {},
): Promise<BotWorld> {
  const forge = await startForge({ port: 0 });
  const a = forge.admin;
  for (const u of ["checkpost-bot", "agent", "mallory"]) a.createUser(u);
  const botToken = a.createToken("checkpost-bot");
  const agentToken = a.createToken("agent");
  const malloryToken = a.createToken("mallory");
  const owner = opts.org ?? "agent";
  if (opts.org) {
    a.createOrg(opts.org);
    a.createRepo(opts.org, "work");
    a.addCollaborator(opts.org, "work", "agent", "admin");
  } else a.createRepo("agent", "work");
  a.addCollaborator(owner, "work", "checkpost-bot", opts.botAdmin ? "admin" : "write");
  for (const w of opts.writers ?? []) {
    a.createUser(w);
    a.addCollaborator(owner, "work", w, "write");
  }
  a.createLabel(owner, "work", { name: DEFAULT_SESSION_LABEL });
  const issue = a.createIssue(owner, "work", {
    title: DEFAULT_SESSION_TITLE,
    body: "Notes from a person.\n",
    labels: [DEFAULT_SESSION_LABEL],
    ...(opts.issueAuthor ? { author: opts.issueAuthor } : {}),
  }).number;
  let offset = 0;
  const logs: string[] = [];
  const logger = createLogger({
    level: "debug",
    pretty: false,
    destination: new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    }),
    secrets: [botToken, SECRET, API_TOKEN],
  });
  const hostName = opts.host ?? TEST_HOST;
  const github = hostName === "github" ? await githubOverForge({ forgeUrl: forge.url, now: () => Date.now(), oracleToken: oracle(forge) }) : undefined;
  const hosts = github ? new Map([[github.host.name, github.host]]) : undefined;
  const start = (c: BotConfig, deps: StartBotDeps) => startBot(c, { ...deps, ...(hosts ? { hosts } : {}) });
  const hookUrl = (target: string) => (github ? github.hookUrl(target) : target);
  const config: BotConfig = {
    ...defaultBotConfig({ url: forge.url, token: botToken }, [{ owner, repo: "work" }]),
    ...(github ? { issueHost: github.host.name } : {}),
    trustedAuthors: ["agent"],
    webhookSecret: SECRET,
    apiTokens: [API_TOKEN],
    port: 0,
    ...TIMERS_OFF,
    liveness: { minStaleMs: 60_000 },
    staleAlerts: true,
    retries: 2,
    timeoutMs: 5000,
    ...overrides,
  };
  const bot = await start(config, { logger, now: () => new Date(Date.now() + offset) });
  const api = (token: string) => new ForgejoApi(new ForgejoClient({ url: forge.url, token, minRetryDelayMs: 1, maxRetryDelayMs: 5 }));
  if (opts.webhook !== false)
    await api(agentToken).createHook(
      { owner, repo: "work" },
      { type: "forgejo", active: true, events: ["issues", "issue_comment"], config: { url: hookUrl(`${bot.url}${config.webhookPath}`), content_type: "json", secret: SECRET } },
    );
  return {
    forge,
    bot,
    config,
    logger,
    repo: { owner, repo: "work" },
    issue,
    botToken,
    agentToken,
    malloryToken,
    api,
    botFetch: (path, init = {}) => fetch(`${bot.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${API_TOKEN}` } }),
    advance: (ms) => (offset += ms),
    async settle() {
      // Until a whole round makes no Forgejo request: our own dashboard write and index comment come
      // back as deliveries, which may mark the dashboard dirty again and queue upkeep (CI once saw a
      // timed write land after a fixed two rounds, inside a test that counts requests).
      for (let round = 0; round < 20; round++) {
        const activity = () => forge.admin.stats().totalRequests + forge.admin.stats().deliveries;
        const before = activity();
        await forge.admin.idle();
        await bot.idle();
        for (const t of bot.trackers()) await t.maintained();
        await bot.flushDashboards();
        await forge.admin.idle();
        await bot.idle();
        if (round > 0 && activity() === before) return;
      }
      throw new Error("the bot kept writing through 20 settle rounds");
    },
    logs,
    host: hostName,
    capabilities: github ? github.host.capabilities : FORGEJO_CAPABILITIES,
    ...(github ? { github } : {}),
    hookUrl,
    startBot: start,
    async close() {
      await bot.stop();
      await github?.close();
      await forge.close();
    },
  };
}

/** A site admin's token on the forge, for the GitHub surface's permission queries (see githubOverForge). */
function oracle(forge: ForgeServer): string {
  forge.admin.createUser("site-oracle", { isAdmin: true });
  return forge.admin.createToken("site-oracle");
}
