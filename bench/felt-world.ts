/**
 * One setting of the felt-latency bench (bench/felt-run.ts): the embedded forge, the bot (one on SQLite, or
 * two replicas on PostgreSQL behind a round-robin load balancer), and an observer webhook that notes when each
 * comment and body edit lands on the issue, the way a person watching the issue would see it.
 * Everything runs in this process: the figures include the forge's and the client's share of one event loop.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { z } from "zod";
import { startBot } from "../src/app/start-bot.ts";
import type { BotConfig } from "../src/bot/bot-config.ts";
import type { Bot } from "../src/bot/create-bot.ts";
import { defaultBotConfig } from "../src/config/bot-env.ts";
import { startForge } from "../src/embedded-forge/index.ts";
import type { ForgeServer } from "../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import { createLogger } from "../src/log/create-logger.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../src/session-client/index.ts";
import { RoundRobinDispatcher } from "../test/helpers/round-robin-dispatcher.ts";

export type BotMode = "webhooks" | "polling";
export type StoreKind = "sqlite" | "postgres";

export interface FeltSettings {
  mode: BotMode;
  store: StoreKind;
  /** CHECKPOST_POLL_INTERVAL_MS when polling. */
  pollMs: number;
  /** CHECKPOST_DASHBOARD_INTERVAL_MS. */
  dashboardMs: number;
  /** CHECKPOST_LEASE_TTL_MS. */
  leaseTtlMs: number;
  /** CHECKPOST_FEED_INTERVAL_MS (PostgreSQL). */
  feedMs: number;
}

export const REPO = { owner: "agent", repo: "work" };
export const API_TOKEN = "felt-api-token-0123456789abcdef";
const SECRET = "felt-webhook-secret";

/** What the observer webhook sees: a comment created, or the issue's body as edited. */
export interface Seen {
  at: number;
  kind: "comment" | "body";
  author: string;
  body: string;
}

const HookSchema = z.object({
  action: z.string(),
  comment: z.object({ body: z.string(), user: z.object({ login: z.string() }) }).optional(),
  issue: z.object({ body: z.string().nullable().optional() }).optional(),
  sender: z.object({ login: z.string() }).optional(),
});

/** A webhook receiver that keeps what it sees and wakes whoever waits for a match. */
export class Observer {
  private readonly seen: Seen[] = [];
  private readonly waiters: { since: number; match: (s: Seen) => boolean; resolve: (at: number) => void }[] = [];
  private server: Server | null = null;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const at = performance.now();
        res.writeHead(200).end();
        const p = HookSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        if (!p.success) return;
        const h = p.data;
        const event = req.headers["x-forgejo-event"];
        let s: Seen | null = null;
        if (event === "issue_comment" && h.action === "created" && h.comment) s = { at, kind: "comment", author: h.comment.user.login, body: h.comment.body };
        else if (event === "issues" && h.action === "edited" && typeof h.issue?.body === "string") s = { at, kind: "body", author: h.sender?.login ?? "", body: h.issue.body };
        if (!s) return;
        this.seen.push(s);
        if (this.seen.length > 2_000) this.seen.splice(0, 1_000);
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          const w = this.waiters[i];
          if (w && s.at >= w.since && w.match(s)) {
            this.waiters.splice(i, 1);
            w.resolve(s.at);
          }
        }
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** When (performance.now()) the first event at or after `since` matching `match` arrived; waits for it. */
  when(since: number, match: (s: Seen) => boolean): Promise<number> {
    const hit = this.seen.find((s) => s.at >= since && match(s));
    if (hit) return Promise.resolve(hit.at);
    return new Promise((resolve) => this.waiters.push({ since, match, resolve }));
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

export interface FeltWorld {
  settings: FeltSettings;
  forge: ForgeServer;
  issue: number;
  agentToken: string;
  aliceToken: string;
  api(token: string): ForgejoApi;
  observer: Observer;
  /** Live bots: one on SQLite; replicas on PostgreSQL. */
  bots: Bot[];
  /** The bot that holds the issue's lease now (waits for one). */
  leader(): Promise<Bot>;
  /** Start one more replica (PostgreSQL) named `id`. */
  addReplica(id: string): Promise<Bot>;
  /** Stop a bot as a crash would leave it: its lease neither released nor renewed, it stays in the live set until its heartbeat runs out. */
  crash(b: Bot): Promise<void>;
  close(): Promise<void>;
}

const quiet = () => createLogger({ level: "warn", pretty: false, destination: new Writable({ write: (_c, _e, cb) => cb() }) });

/** `databaseUrl`: a fresh, empty PostgreSQL database (store "postgres"). */
export async function feltWorld(settings: FeltSettings, databaseUrl?: string): Promise<FeltWorld> {
  const forge = await startForge({ port: 0 });
  const a = forge.admin;
  for (const u of ["checkpost-bot", "agent", "alice"]) a.createUser(u);
  const botToken = a.createToken("checkpost-bot");
  const agentToken = a.createToken("agent");
  const aliceToken = a.createToken("alice");
  a.createRepo(REPO.owner, REPO.repo);
  // Admin: the bot reads people's permissions to decide who may command (Forgejo answers 403 otherwise).
  a.addCollaborator(REPO.owner, REPO.repo, "checkpost-bot", "admin");
  a.addCollaborator(REPO.owner, REPO.repo, "alice", "write");
  a.createLabel(REPO.owner, REPO.repo, { name: DEFAULT_SESSION_LABEL });
  const issue = a.createIssue(REPO.owner, REPO.repo, { title: DEFAULT_SESSION_TITLE, body: "Notes from a person.\n", labels: [DEFAULT_SESSION_LABEL] }).number;
  const api = (token: string) => new ForgejoApi(new ForgejoClient({ url: forge.url, token, minRetryDelayMs: 1, maxRetryDelayMs: 5 }));
  const dir = mkdtempSync(join(tmpdir(), "checkpost-felt-"));
  const config: BotConfig = {
    ...defaultBotConfig({ url: forge.url, token: botToken }, [REPO]),
    trustedAuthors: ["agent"],
    webhookSecret: SECRET,
    apiTokens: [API_TOKEN],
    port: 0,
    pollIntervalMs: settings.mode === "polling" ? settings.pollMs : 0,
    reconcileIntervalMs: 0,
    livenessIntervalMs: 0,
    dashboardIntervalMs: settings.dashboardMs,
    leaseTtlMs: settings.leaseTtlMs,
    rolloverAt: 0,
    storeFile: join(dir, "projection.sqlite"),
    retries: 2,
    timeoutMs: 10_000,
  };
  const logger = quiet();
  const bots: Bot[] = [];
  const start = (id: string) =>
    startBot(settings.store === "postgres" && databaseUrl ? { ...config, database: { url: databaseUrl, feedIntervalMs: settings.feedMs, replicaId: id } } : config, { logger });
  const observer = new Observer();
  await observer.start();
  let dispatcher: RoundRobinDispatcher | null = null;
  if (settings.store === "postgres") {
    if (!databaseUrl) throw new Error("the postgres setting needs a database URL");
    for (const id of ["r1", "r2"]) bots.push(await start(id));
    if (settings.mode === "webhooks") {
      // The load balancer in front of the replicas: each delivery to one live replica, the next one when it is dead.
      dispatcher = new RoundRobinDispatcher({ mode: "sync", backends: () => bots.map((b) => `${b.url}${config.webhookPath}`) });
      await dispatcher.start();
    }
  } else bots.push(await start("solo"));
  const agentApi = api(agentToken);
  const hook = (url: string) => agentApi.ensureWebhook(REPO, { url, secret: SECRET, events: ["issues", "issue_comment"] });
  if (settings.mode === "webhooks") await hook(dispatcher ? dispatcher.url : `${bots[0]?.url}${config.webhookPath}`);
  await hook(observer.url);
  const leads = (b: Bot) => b.trackers().some((t) => t.lease.current() !== null);
  return {
    settings,
    forge,
    issue,
    agentToken,
    aliceToken,
    api,
    observer,
    bots,
    async leader() {
      for (let i = 0; ; i++) {
        const l = bots.find(leads);
        if (l) return l;
        if (i > 20 * 60 * 5) throw new Error("no replica took the issue's lease within 5 minutes");
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async addReplica(id) {
      const b = await start(id);
      bots.push(b);
      return b;
    },
    async crash(b) {
      for (const t of b.trackers()) t.lease.release = async () => undefined;
      if (b.replica) b.replica.store.forgetReplica = async () => undefined;
      bots.splice(bots.indexOf(b), 1);
      await b.stop();
    },
    async close() {
      for (const b of bots) await b.stop();
      await dispatcher?.close();
      await observer.close();
      await forge.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
