// Two bot replicas on one real PostgreSQL behind a round-robin dispatcher.
import { Writable } from "node:stream";
import pg from "pg";
import { TIMERS_OFF } from "../helpers/bot-world.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import type { BotConfig } from "../../src/bot/bot-config.ts";
import { startBot } from "../../src/app/start-bot.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { startForge } from "../../src/embedded-forge/index.ts";
import type { ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { PostgresProjectionStore } from "../../src/bot-state/postgres/postgres-projection-store.ts";
import { issueKey } from "../../src/bot-state/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../src/session-client/index.ts";
import { RoundRobinDispatcher } from "../helpers/round-robin-dispatcher.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const SECRET = "replica-webhook-secret";
const API_TOKEN = "replica-api-token-0123456789abcdef";
const REPO = { owner: "agent", repo: "work" };
/** A second watched repository with its own session issue: leases spread over the replicas. */
const OTHER = { owner: "agent", repo: "other" };

describe.skipIf(!server.url)(`bot replicas on PostgreSQL${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let forge: ForgeServer;
  let dispatcher: RoundRobinDispatcher;
  let dbUrl = "";
  let issue = 0;
  let agent: SessionStore;
  let agentApi: ForgejoApi;
  let observer: PostgresProjectionStore;
  const bots: Bot[] = [];
  let config: BotConfig;
  const logs: string[] = [];
  const logger = createLogger({
    level: "info",
    pretty: false,
    destination: new Writable({
      write(chunk, _e, cb) {
        logs.push(String(chunk));
        cb();
      },
    }),
  });
  const startReplica = async (id: string) => {
    const bot = await startBot({ ...config, leaseTtlMs: 3_000, database: { url: dbUrl, feedIntervalMs: 50, replicaId: id } }, { logger });
    bots.push(bot);
    return bot;
  };
  const live = () => bots.filter((b) => b.server.listening);
  const get = async (bot: Bot, path: string) => {
    const r = await fetch(`${bot.url}${path}`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    return { status: r.status, body: (await r.json()) as unknown };
  };
  const leadsIssue = (b: Bot, repo: typeof REPO) => b.trackers().some((t) => t.repo.repo === repo.repo && t.lease.current() !== null);
  const leader = () => live().filter((b) => leadsIssue(b, REPO));

  beforeAll(async () => {
    dbUrl = await server.freshDatabase();
    forge = await startForge({ port: 0 });
    const a = forge.admin;
    for (const u of ["checkpost-bot", "agent"]) a.createUser(u);
    const botToken = a.createToken("checkpost-bot");
    const agentToken = a.createToken("agent");
    a.createRepo("agent", "work");
    a.addCollaborator("agent", "work", "checkpost-bot", "write");
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    issue = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "Notes.\n", labels: [DEFAULT_SESSION_LABEL] }).number;
    a.createRepo("agent", "other");
    a.addCollaborator("agent", "other", "checkpost-bot", "write");
    a.createLabel("agent", "other", { name: DEFAULT_SESSION_LABEL });
    a.createIssue("agent", "other", { title: DEFAULT_SESSION_TITLE, body: "Other notes.\n", labels: [DEFAULT_SESSION_LABEL] });
    config = {
      ...defaultBotConfig({ url: forge.url, token: botToken }, [REPO, OTHER]),
      trustedAuthors: ["agent"],
      webhookSecret: SECRET,
      apiTokens: [API_TOKEN],
      port: 0,
      ...TIMERS_OFF,
      retries: 2,
      timeoutMs: 5_000,
    };
    dispatcher = new RoundRobinDispatcher({ backends: () => live().map((b) => `${b.url}${config.webhookPath}`), mode: "sync" });
    await dispatcher.start();
    const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token: agentToken, minRetryDelayMs: 1, maxRetryDelayMs: 5 }));
    await api.createHook(REPO, { type: "forgejo", active: true, events: ["issues", "issue_comment"], config: { url: dispatcher.url, content_type: "json", secret: SECRET } });
    agent = new SessionStore({ api, repo: REPO, issue });
    agentApi = api;
    await Promise.all([startReplica("r1"), startReplica("r2")]);
    observer = await PostgresProjectionStore.open({ url: dbUrl });
  });
  afterAll(async () => {
    for (const b of live()) await b.stop();
    await observer?.close();
    await dispatcher?.close();
    await forge?.close();
  });

  it("any replica takes any delivery; every replica answers the same from the shared store", async () => {
    const saved: number[] = [];
    for (let i = 1; i <= 6; i++) saved.push((await agent.save({ agent: `w${i % 3}`, session: "s1", phase: `p${i}`, data: { i } })).comment_id);
    await forge.admin.idle();
    // Both replicas handled some deliveries (round-robin), and each save was stored once. (The leader's
    // resume index comment is stored too, once per edit: a delivery each, not counted here.)
    const handled = await Promise.all(bots.map(async (b) => (await b.metrics.deliveries.get()).values.filter((v) => v.labels.result === "applied").reduce((n, v) => n + v.value, 0)));
    expect(handled.every((n) => n > 0)).toBe(true);
    const counts = await observer.appliedCounts(issueKey(REPO, issue));
    expect(saved.map((id) => counts.get(id))).toEqual([1, 1, 1, 1, 1, 1]);
    // The other replica sees each write within the feed interval: wait until both answer every agent's
    // newest save (w1's last is p4, w2's p5, w0's p6; the last save may reach the second replica last).
    await vi.waitFor(
      async () => {
        const answers = await Promise.all(bots.map((b) => get(b, "/api/resume?agent=w1&session=s1")));
        for (const a of answers) expect(a.body).toMatchObject({ phase: "p4", state: { i: 4 } });
        const agents = await Promise.all(
          bots.map(async (b) =>
            ((await get(b, `/api/agents?repo=agent/work&issue=${issue}`)).body as { agents: { agent: string; latest: { phase: string } }[] }).agents.map((x) => [x.agent, x.latest.phase]).sort(),
          ),
        );
        for (const a of agents)
          expect(a).toEqual([
            ["w0", "p6"],
            ["w1", "p4"],
            ["w2", "p5"],
          ]);
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it("leases spread: with two session issues and two replicas, each replica leads one", async () => {
    await vi.waitFor(
      () => {
        for (const repo of [REPO, OTHER]) expect(live().filter((b) => leadsIssue(b, repo))).toHaveLength(1);
        expect(live().filter((b) => leadsIssue(b, REPO))[0]).not.toBe(live().filter((b) => leadsIssue(b, OTHER))[0]);
      },
      { timeout: 15_000, interval: 50 },
    );
  });

  it("exactly one replica leads the issue and only it writes the dashboard, fenced by its token", async () => {
    await vi.waitFor(() => expect(leader()).toHaveLength(1), { timeout: 5_000, interval: 50 });
    for (const b of bots) await b.flushDashboards();
    const log = await observer.writeLog(issueKey(REPO, issue));
    expect(log.length).toBeGreaterThan(0);
    const lease = await observer.currentLease(issueKey(REPO, issue));
    // Writes under different tokens never overlap in time (a busy machine may have let r1 renew late and re-take its lease).
    for (const w of log) for (const v of log) if (w.token < v.token) expect(w.endedMs!).toBeLessThanOrEqual(v.startedMs);
    expect(log.at(-1)).toMatchObject({ holder: lease?.holder, token: lease?.token });
    expect(lease?.holder).toBe(leader()[0]?.replica?.replicaId);
    const body = (await new ForgejoApi(new ForgejoClient({ url: forge.url, token: config.token })).getIssue(REPO, issue)).body;
    expect(body).toContain("w1");
  });

  it("when the leader stops, the other replica takes the lease with a higher token and writes the dashboard", async () => {
    const key = issueKey(REPO, issue);
    const before = (await observer.currentLease(key))!;
    const old = leader()[0]!;
    await old.stop();
    await vi.waitFor(() => expect(leader()).toHaveLength(1), { timeout: 3_000, interval: 20 });
    const after = (await observer.currentLease(key))!;
    expect(after.token).toBeGreaterThan(before.token);
    expect(after.holder).not.toBe(before.holder);
    await agent.save({ agent: "w9", session: "s1", phase: "after-failover", data: {} });
    await forge.admin.idle();
    await leader()[0]!.flushDashboards();
    const log = await observer.writeLog(key);
    expect(log.at(-1)).toMatchObject({ holder: after.holder, token: after.token });
  });

  it("while PostgreSQL is unavailable: not ready, deliveries answered 503, nothing acknowledged; the delivery lands once it is back", async () => {
    const bot = live()[0]!;
    const admin = new pg.Client({ connectionString: server.url ?? "" });
    await admin.connect();
    const db = new URL(dbUrl).pathname.slice(1);
    const refusedBefore = dispatcher.stats.statuses[503] ?? 0;
    let saved: Promise<{ comment_id: number }> | null = null;
    try {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [db]);
      saved = agent.save({ agent: "w7", session: "s1", phase: "during-outage", data: {} });
      await saved;
      // Forgejo's delivery reaches a replica, which refuses it: nothing acknowledged that was not stored.
      await vi.waitFor(() => expect(dispatcher.stats.statuses[503] ?? 0).toBeGreaterThan(refusedBefore), { timeout: 5_000, interval: 20 });
      await vi.waitFor(async () => expect((await get(bot, "/readyz")).status).toBe(503), { timeout: 5_000, interval: 50 });
      expect((await get(bot, "/readyz")).body).toEqual({ status: "store unavailable" });
    } finally {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    // The dispatcher sends it again (as Forgejo's redelivery would) and now it is stored, once.
    await forge.admin.idle();
    await vi.waitFor(async () => expect((await get(bot, "/readyz")).status).toBe(200), { timeout: 5_000, interval: 50 });
    await observer.close();
    observer = await PostgresProjectionStore.open({ url: dbUrl });
    const counts = await observer.appliedCounts(issueKey(REPO, issue));
    const during = await saved;
    expect(during).not.toBeNull();
    expect(counts.get(during?.comment_id ?? 0)).toBe(1); // refused during the outage, stored once after
    // Every comment but the bot's own index comment (stored once per edit) was stored once.
    const botComments = new Set((await agentApi.listComments(REPO, issue)).filter((c) => c.author === "checkpost-bot").map((c) => c.id));
    expect([...counts].filter(([id, n]) => !botComments.has(id) && n !== 1)).toEqual([]);
    await vi.waitFor(
      async () => {
        for (const b of live()) expect((await get(b, "/api/resume?agent=w7&session=s1")).body).toMatchObject({ phase: "during-outage" });
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(logs.some((l) => l.includes("the shared store is unavailable"))).toBe(true);
  });
});
