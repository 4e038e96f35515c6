// Issue 32: a follower folds another replica's save when PostgreSQL notifies it, not at its next feed
// poll. The feed poll here is a minute apart and the test's deadline far shorter, so it cannot pass by
// polling; the only way the follower learns of the save is the store's change notification.
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
import type { CommentEvent } from "../../src/projection/index.ts";
import { formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const REPO = { owner: "agent", repo: "work" };
const SECRET = "notify-webhook-secret";
const FEED_POLL_MS = 60_000;

describe.skipIf(!server.url)(`replicas woken by PostgreSQL notifications${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let forge: ForgeServer;
  let api: ForgejoApi;
  let issue = 0;
  const bots: Bot[] = [];
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
    const config: BotConfig = {
      ...defaultBotConfig({ url: forge.url, token: botToken }, [REPO]),
      trustedAuthors: ["agent"],
      webhookSecret: SECRET,
      port: 0,
      // Nothing but a webhook to the first replica and the store's notifications may carry the save.
      pollIntervalMs: 0,
      reconcileIntervalMs: 0,
      livenessIntervalMs: 0,
      dashboardIntervalMs: 0,
      leaseTtlMs: 600_000,
      retries: 1,
      timeoutMs: 5_000,
    };
    for (const id of ["r1", "r2"]) bots.push(await startBot({ ...config, database: { url: dbUrl, feedIntervalMs: FEED_POLL_MS, replicaId: id } }, { logger }));
    // Only the first replica gets webhooks: the second can learn of a save from the shared store only.
    await api.createHook(REPO, { type: "forgejo", active: true, events: ["issues", "issue_comment"], config: { url: `${bots[0]!.url}${config.webhookPath}`, content_type: "json", secret: SECRET } });
  });
  afterAll(async () => {
    for (const b of bots) await b.stop();
    await forge?.close();
  });

  it("the follower folds a save stored by the other replica well before its feed poll", async () => {
    const follower = bots[1]!;
    const t = follower.trackers()[0]!;
    expect(await follower.replica?.listeningSettled()).toBe(true);
    const body = formatCheckpoint({ agent: "w", session: "s1", phase: "notified", timestamp: pythonUtcIsoformat(new Date()), data: {} });
    // The comment's id is known only once posted; the wrap matches by body instead.
    let foldedAt = 0;
    const folded = new Promise<void>((resolve) => {
      const fold = t.fold.bind(t);
      t.fold = (events: CommentEvent[]) => {
        if (events.some((e) => e.type === "upsert" && e.comment.body === body)) {
          foldedAt = Date.now();
          resolve();
        }
        return fold(events);
      };
    });
    const savedAt = Date.now();
    await api.createComment(REPO, issue, body);
    await folded;
    const ms = foldedAt - savedAt;
    // A poll could not have brought it: the next one is a minute away (vitest's own timeout is shorter).
    expect(ms).toBeLessThan(FEED_POLL_MS / 4);
    expect(t.projection.latest("w", "s1")?.phase).toBe("notified");
  }, 20_000);
});
