/**
 * One schedule's world for the mixed-fleet suite: the embedded Forgejo (in this process, on a
 * clock the schedule can move), separate accounts for the bot, the agents and the people, and the
 * bot as one process or two replica processes on PostgreSQL, behind a dispatcher standing in for
 * Forgejo's webhook delivery (so a restarted bot's new port needs no new hook).
 */
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { execFile } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { defaultBotConfig } from "../../../src/config/bot-env.ts";
import type { BotConfig } from "../../../src/bot/bot-config.ts";
import { startForge } from "../../../src/embedded-forge/index.ts";
import type { ForgeServer } from "../../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import type { IssueHost, RepoRef } from "../../../src/ports/issue-host.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../../src/session-client/index.ts";
import { RoundRobinDispatcher } from "../../../test/helpers/round-robin-dispatcher.ts";

export const SECRET = "fleet-webhook-secret";
export const API_TOKEN = "fleet-api-token-0123456789abcdef";
export const REPO: RepoRef = { owner: "alice", repo: "work" };
export const BOT_LOGIN = "checkpost-bot";
/** Agents' accounts: the seed's Python agents, two CLI machines, the library process. */
export const AGENT_LOGINS = ["seed-agent", "cli-a", "cli-b", "lib-agent"] as const;
/** People: alice owns the repository (a writer); mallory may only comment; observer reads (the readers' token). */
export const PEOPLE = ["alice", "mallory", "observer"] as const;

export type BotMode = { ingest: "webhook" | "polling"; replicas: 1 | 2 };

/** The esbuild bundles the suite runs as processes: built once per run (a process then starts in well under a second). */
export interface FleetBundles {
  botScript: string;
  cliScript: string;
}

export async function buildBundles(dir: string): Promise<FleetBundles> {
  mkdirSync(dir, { recursive: true });
  const common = { bundle: true, platform: "node" as const, format: "esm" as const, target: "node20", packages: "external" as const, logLevel: "warning" as const };
  const botScript = join(dir, "bot-process.mjs");
  const cliScript = join(dir, "checkpost.cjs");
  await build({ ...common, entryPoints: [fileURLToPath(new URL("../replicas/replica-process.ts", import.meta.url))], outfile: botScript });
  // The CLI exactly as `npm run build` bundles it (scripts/bundle-cli.ts: the hot commands in one CommonJS
  // file with V8's code cache), into this folder, started by a copy of bin/checkpost.cjs's one line.
  const bundleDir = resolve(dir, "cli-bundle");
  await promisify(execFile)(process.execPath, ["--import", "tsx", fileURLToPath(new URL("../../bundle-cli.ts", import.meta.url))], {
    env: { ...process.env, CHECKPOST_BUNDLE_OUTDIR: bundleDir },
  });
  writeFileSync(cliScript, `"use strict";\nrequire(${JSON.stringify(join(bundleDir, "start.cjs"))}).start(${JSON.stringify(bundleDir)}, process.argv, process.env);\n`);
  return { botScript, cliScript };
}

export interface BotProcess {
  id: string;
  child: ChildProcess;
  url: string;
  alive: boolean;
}

export interface FleetWorld {
  forge: ForgeServer;
  tokens: Record<string, string>;
  api(login: string): IssueHost;
  /** Forge time minus real time (ms): the schedule starts two days in the past and moves forward. */
  clockOffsetMs: number;
  config: BotConfig;
  mode: BotMode;
  bots: BotProcess[];
  startBot(): Promise<BotProcess>;
  kill(bot: BotProcess): void;
  live(): BotProcess[];
  dispatcher: RoundRobinDispatcher;
  tmp: string;
  /** Run at close (before the forge stops): the schedule's own processes. */
  onClose(fn: () => void): void;
  close(): Promise<void>;
}

export interface WorldOptions {
  bundles: FleetBundles;
  mode: BotMode;
  rolloverAt: number;
  /** Required for two replicas: a fresh database's URL. */
  databaseUrl?: string;
  /** Forge clock at the start, relative to now (negative: in the past). */
  clockOffsetMs: number;
  /** Each bot process's log (pino, level info) goes to `<logPrefix>-<bot id>.log` (FLEET_BOT_LOGS); else it is silent. */
  logPrefix?: string;
}

export async function startWorld(o: WorldOptions): Promise<FleetWorld> {
  let offset = o.clockOffsetMs;
  const forge = await startForge({ port: 0, clock: () => Date.now() + offset });
  const a = forge.admin;
  const tokens: Record<string, string> = {};
  for (const u of [BOT_LOGIN, ...AGENT_LOGINS, ...PEOPLE]) {
    a.createUser(u);
    tokens[u] = a.createToken(u);
  }
  a.createRepo(REPO.owner, REPO.repo);
  // The bot needs admin to ask Forgejo who may command (docs/dashboard.md, "Deployment").
  a.addCollaborator(REPO.owner, REPO.repo, BOT_LOGIN, "admin");
  for (const u of AGENT_LOGINS) a.addCollaborator(REPO.owner, REPO.repo, u, "write");
  a.createLabel(REPO.owner, REPO.repo, { name: DEFAULT_SESSION_LABEL });
  a.createIssue(REPO.owner, REPO.repo, { title: DEFAULT_SESSION_TITLE, body: "Fleet notes by a person.\n", labels: [DEFAULT_SESSION_LABEL], author: "alice" });
  const api = (login: string) => new ForgejoApi(new ForgejoClient({ url: forge.url, token: tokens[login] as string, retries: 4, minRetryDelayMs: 2, maxRetryDelayMs: 50, timeoutMs: 15_000 }));
  const tmp = mkdtempSync(join(tmpdir(), "checkpost-fleet-"));
  const config: BotConfig = {
    ...defaultBotConfig({ url: forge.url, token: tokens[BOT_LOGIN] as string }, [REPO]),
    trustedAuthors: [...AGENT_LOGINS],
    webhookSecret: SECRET,
    apiTokens: [API_TOKEN],
    port: 0,
    // Polling: a short period; webhooks: none, so webhooks alone must carry every change.
    pollIntervalMs: o.mode.ingest === "polling" ? 100 : 0,
    reconcileIntervalMs: 1000,
    dashboardIntervalMs: 50,
    livenessIntervalMs: 0,
    leaseTtlMs: 1500,
    rolloverAt: o.rolloverAt,
    // Health compaction: every superseded health signal goes at the next upkeep.
    healthRetentionMs: 1,
    compactionIntervalMs: 300,
    storeFile: join(tmp, "bot.sqlite"),
    retries: 4,
    timeoutMs: 10_000,
  };
  const bots: BotProcess[] = [];
  const closers: (() => void)[] = [];
  let next = 1;
  const live = () => bots.filter((b) => b.alive);
  const dispatcher = new RoundRobinDispatcher({ backends: () => live().map((b) => `${b.url}${config.webhookPath}`), mode: "sync" });
  await dispatcher.start();
  if (o.mode.ingest === "webhook")
    await api("alice").createHook(REPO, { type: "forgejo", active: true, events: ["issues", "issue_comment"], config: { url: dispatcher.url, content_type: "json", secret: SECRET } });

  const startBot = async (): Promise<BotProcess> => {
    const id = `bot-${next++}`;
    const cfg: BotConfig = o.mode.replicas === 2 ? { ...config, database: { url: o.databaseUrl as string, feedIntervalMs: 50, replicaId: id } } : config;
    const logFd = o.logPrefix ? openSync(`${o.logPrefix}-${id}.log`, "a") : null;
    const child = fork(o.bundles.botScript, [], {
      execArgv: [],
      env: { ...process.env, CHAOS_BOT_CONFIG: JSON.stringify(cfg), ...(logFd !== null ? { CHAOS_LOG_LEVEL: process.env.FLEET_BOT_LOG_LEVEL ?? "info" } : {}) },
      stdio: ["ignore", "ignore", logFd ?? "inherit", "ipc"],
    });
    if (logFd !== null) closeSync(logFd); // the child holds its own copy
    const url = await new Promise<string>((resolve, reject) => {
      child.once("message", (m: { url: string }) => resolve(m.url));
      child.once("exit", (code) => reject(new Error(`${id} exited (${code}) before it was up`)));
    });
    const b: BotProcess = { id, child, url, alive: true };
    child.once("exit", () => (b.alive = false));
    bots.push(b);
    return b;
  };
  await Promise.all(Array.from({ length: o.mode.replicas }, () => startBot()));

  return {
    forge,
    tokens,
    api,
    get clockOffsetMs() {
      return offset;
    },
    set clockOffsetMs(v: number) {
      offset = v;
    },
    config,
    mode: o.mode,
    bots,
    startBot,
    kill(b) {
      b.child.kill("SIGKILL");
      b.alive = false;
    },
    live,
    dispatcher,
    tmp,
    onClose: (fn) => closers.push(fn),
    async close() {
      for (const fn of closers) fn();
      for (const b of live()) {
        b.child.kill("SIGKILL");
        b.alive = false;
      }
      await Promise.all(bots.map((b) => (b.child.exitCode === null && b.child.signalCode === null ? new Promise((r) => b.child.once("exit", r)) : null)));
      await dispatcher.close();
      await forge.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
