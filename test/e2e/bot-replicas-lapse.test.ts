// Issue 18.5: replicas polling (no webhook) when the leader dies. A follower reads Forgejo itself
// as soon as the leader's lease lapses (IssueLease.leaderLapsed: over half the TTL unrenewed), so
// ingest does not stop for a whole TTL. LAPSE_TTL_MS=30000 measures the default (docs/scale-out.md).
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import type { BotConfig } from "../../src/bot/bot-config.ts";
import { startBot } from "../../src/app/start-bot.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { startForge } from "../../src/embedded-forge/index.ts";
import type { ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const API_TOKEN = "lapse-api-token-0123456789abcdef";
const REPO = { owner: "agent", repo: "work" };
const TTL = Number(process.env.LAPSE_TTL_MS ?? 3_000);
const POLL = Number(process.env.LAPSE_POLL_MS ?? 2_000);

describe.skipIf(!server.url)(`polling replicas when the leader dies${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let forge: ForgeServer;
  let api: ForgejoApi;
  let issue = 0;
  const bots: Bot[] = [];
  let config: BotConfig;
  const logger = createLogger({ level: "warn", pretty: false, destination: new Writable({ write: (_c, _e, cb) => cb() }) });

  beforeAll(async () => {
    const dbUrl = await server.freshDatabase();
    forge = await startForge({ port: 0 });
    const a = forge.admin;
    for (const u of ["checkpost-bot", "agent"]) a.createUser(u);
    const botToken = a.createToken("checkpost-bot");
    a.createRepo("agent", "work");
    a.addCollaborator("agent", "work", "checkpost-bot", "write");
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    issue = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "Notes.\n", labels: [DEFAULT_SESSION_LABEL] }).number;
    api = new ForgejoApi(new ForgejoClient({ url: forge.url, token: a.createToken("agent") }));
    config = {
      ...defaultBotConfig({ url: forge.url, token: botToken }, [REPO]),
      trustedAuthors: ["agent"],
      webhookSecret: "lapse-webhook-secret", // no hook is registered: the replicas only poll
      apiTokens: [API_TOKEN],
      port: 0,
      pollIntervalMs: POLL,
      reconcileIntervalMs: 0,
      livenessIntervalMs: 0,
      dashboardIntervalMs: 1_000,
      leaseTtlMs: TTL,
      retries: 1,
      timeoutMs: 5_000,
    };
    for (const id of ["r1", "r2"]) bots.push(await startBot({ ...config, database: { url: dbUrl, feedIntervalMs: 100, replicaId: id } }, { logger }));
  });
  afterAll(async () => {
    for (const b of bots) await b.stop();
    await forge?.close();
  });

  const phaseAt = async (b: Bot) => {
    const r = await fetch(`${b.url}/api/resume?agent=w&session=s1`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    return r.status === 200 ? ((await r.json()) as { phase: string }).phase : null;
  };
  const save = (phase: string) => api.createComment(REPO, issue, formatCheckpoint({ agent: "w", session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: {} }));

  it(
    "after the leader stops (as a crash: no release), a follower ingests within about half a TTL, not a whole one",
    async () => {
      const leads = (b: Bot) => b.trackers().some((t) => t.lease.current() !== null);
      for (let i = 0; i < 200 && !bots.some(leads); i++) await new Promise((r) => setTimeout(r, 50));
      const leader = bots.find(leads)!;
      const follower = bots.find((b) => b !== leader)!;
      await save("before");
      // The leader polls every POLL ms; the follower folds what it stored from the shared feed.
      for (const until = Date.now() + 2 * POLL + 5_000; Date.now() < until && (await phaseAt(follower)) !== "before"; ) await new Promise((r) => setTimeout(r, 50));
      expect(await phaseAt(follower)).toBe("before");
      // A crash: the leader's lease is neither released nor renewed again.
      for (const t of leader.trackers()) t.lease.release = async () => undefined;
      if (leader.replica) leader.replica.store.forgetReplica = async () => undefined;
      const lastRenewal = Math.max(...(await Promise.all(leader.trackers().map(async (t) => ((await leader.store.peekLease(t.lease.name))?.expiresAtMs ?? 0) - TTL))));
      await leader.stop();
      const killedAt = Date.now();
      await save("after");
      let ingestMs = -1;
      let takeoverMs = -1;
      while (ingestMs < 0 || takeoverMs < 0) {
        const now = Date.now();
        if (ingestMs < 0 && (await phaseAt(follower)) === "after") ingestMs = now - killedAt;
        if (takeoverMs < 0 && follower.trackers().some((t) => t.lease.current() !== null)) takeoverMs = now - killedAt;
        if (now - killedAt > 3 * TTL) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const sinceRenewal = killedAt - lastRenewal;
      console.log(JSON.stringify({ ttlMs: TTL, pollMs: POLL, killedMsAfterLastRenewal: sinceRenewal, ingestAfterKillMs: ingestMs, takeoverAfterKillMs: takeoverMs }));
      expect(ingestMs).toBeGreaterThanOrEqual(0);
      // Ingest resumes once over half the TTL passed since the last renewal (checked every TTL/6), before the lease runs out.
      expect(ingestMs + sinceRenewal).toBeLessThan(TTL / 2 + TTL / 6 + 1_500);
      expect(ingestMs + sinceRenewal).toBeLessThan(TTL);
      expect(takeoverMs).toBeGreaterThanOrEqual(0);
    },
    4 * TTL + 3 * POLL + 30_000,
  );
});
