import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { Probot, ProbotOctokit, createNodeMiddleware } from "probot";
import { ForgejoApi, ForgejoClient } from "../forgejo/index.ts";
import type { RepoRef } from "../forgejo/index.ts";
import { isSessionIssue, listSessionIssues } from "../store/index.ts";
import { createBotMetrics } from "./bot-metrics.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { BotConfig } from "./bot-config-from-env.ts";
import { handleApi } from "./http-api.ts";
import { SessionTracker } from "./session-tracker.ts";
import { handleDelivery } from "./handle-delivery.ts";
import { readCappedBody } from "./read-capped-body.ts";

export interface Bot {
  /** http://host:port of the bot (webhooks at config.webhookPath, API beside it). */
  url: string;
  server: Server;
  metrics: BotMetrics;
  trackers(): SessionTracker[];
  tracker(repo: RepoRef, issue: number): SessionTracker | undefined;
  /** Start or find the tracker of an issue (reconciles it first). */
  track(repo: RepoRef, issue: number): Promise<SessionTracker>;
  /** One incremental poll of every tracker (the timer calls this). */
  pollAll(): Promise<void>;
  reconcileAll(): Promise<void>;
  checkLiveness(): Promise<void>;
  /** Write every pending dashboard now. */
  flushDashboards(): Promise<void>;
  /** Resolves when the deliveries received so far are handled. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The bot: Probot verifies and routes webhooks; trackers hold each session
 * issue's projection; timers poll, reconcile and check liveness; the HTTP API
 * answers from memory.
 */
export async function createBot(config: BotConfig, deps: { logger: Logger; now?: () => Date; fetch?: typeof fetch }): Promise<Bot> {
  const log = deps.logger;
  const now = deps.now ?? (() => new Date());
  const metrics = createBotMetrics();
  const client = new ForgejoClient({ url: config.forgejoUrl, token: config.token, logger: log, retries: config.retries, timeoutMs: config.timeoutMs, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
  const api = new ForgejoApi(client);
  const self = (await api.currentUser()).login;
  const policy = {
    trustedAuthors: new Set([self, ...config.trustedAuthors].map((s) => s.toLowerCase())),
    ...(config.signingKey ? { signingKey: config.signingKey } : {}),
  };
  const trackers = new Map<string, SessionTracker>();
  const pendingTracks = new Map<string, Promise<SessionTracker>>();
  const watched = (r: RepoRef) => config.repos.some((x) => x.owner.toLowerCase() === r.owner.toLowerCase() && x.repo.toLowerCase() === r.repo.toLowerCase());
  const keyOf = (r: RepoRef, issue: number) => `${r.owner}/${r.repo}#${issue}`.toLowerCase();
  let ready = false;
  const inflight = new Set<Promise<unknown>>();

  const track = (repo: RepoRef, issue: number): Promise<SessionTracker> => {
    const k = keyOf(repo, issue);
    const existing = trackers.get(k);
    if (existing) return Promise.resolve(existing);
    const pending = pendingTracks.get(k);
    if (pending) return pending;
    const p = (async () => {
      const t = new SessionTracker({
        api,
        repo,
        issue,
        policy,
        selfLogin: self,
        dashboardIntervalMs: config.dashboardIntervalMs,
        liveness: config.liveness,
        staleAlerts: config.staleAlerts,
        ...(config.readWindowSize ? { readWindowSize: config.readWindowSize } : {}),
        logger: log.child({ issue: k }),
        metrics,
        now,
      });
      await t.reconcile();
      trackers.set(k, t);
      log.info({ issue: k, comments: t.projection.snapshot().comments }, "watching session issue");
      return t;
    })().finally(() => pendingTracks.delete(k));
    pendingTracks.set(k, p);
    return p;
  };

  const deliveryDeps = { config, log, metrics, self, watched, track, tracker: (r: RepoRef, n: number) => trackers.get(keyOf(r, n)), isSessionIssue: (i: Parameters<typeof isSessionIssue>[0]) => isSessionIssue(i, config) };
  const run = (name: string, payload: unknown) => {
    const p = handleDelivery(name, payload, deliveryDeps);
    inflight.add(p);
    return p.finally(() => inflight.delete(p));
  };

  // Probot verifies X-Hub-Signature-256, which Forgejo sends beside its own headers.
  // Its throttling (3 s between writes) and retries (1/4/9 s) are off: the bot makes
  // no writes through Probot's client, and our own client has the retry policy.
  let webhookHandler: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | null = null;
  if (config.webhookSecret) {
    const probot = new Probot({
      githubToken: config.token,
      baseUrl: client.apiUrl,
      secret: config.webhookSecret,
      log: log.child({ name: "probot" }),
      Octokit: ProbotOctokit.defaults({ throttle: { enabled: false }, retry: { enabled: false } }),
    });
    const middleware = await createNodeMiddleware(
      (app) => {
        app.on("issue_comment", async (ctx) => void (await run("issue_comment", ctx.payload)));
        app.on("issues", async (ctx) => void (await run("issues", ctx.payload)));
      },
      { probot, webhooksPath: config.webhookPath },
    );
    webhookHandler = async (req, res) => Boolean(await middleware(req, res));
  } else if (config.insecure) {
    log.warn("CHECKPOST_INSECURE_NO_WEBHOOK_SECRET is set: webhook deliveries are NOT authenticated. Never run this way on a network.");
    webhookHandler = async (req, res) => {
      const event = String(req.headers["x-forgejo-event"] ?? req.headers["x-github-event"] ?? "");
      const body = (req as IncomingMessage & { body?: string }).body ?? "";
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        res.writeHead(400).end("invalid JSON");
        return true;
      }
      await run(event, payload);
      res.writeHead(200).end("ok");
      return true;
    };
  } else {
    throw new Error("createBot: webhookSecret is required unless insecure is set");
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === config.webhookPath && req.method === "POST") {
        const body = await readCappedBody(req, config.maxWebhookBytes);
        if (body === null) {
          metrics.deliveries.inc({ event: String(req.headers["x-github-event"] ?? "unknown"), result: "too_large" });
          log.warn({ limit: config.maxWebhookBytes }, "webhook body over CHECKPOST_MAX_WEBHOOK_BYTES: rejected");
          res.writeHead(413, { connection: "close" }).end("payload too large");
          return;
        }
        Object.assign(req, { body });
        if (await webhookHandler?.(req, res)) return;
      } else if (await handleApi(req, res, { trackers: () => [...trackers.values()], ready: () => ready, metrics, config, now })) return;
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    })().catch((e: unknown) => {
      log.error({ err: e }, "request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${addr.port}`;

  // Discover the session issues of every watched repo and read each once.
  for (const repo of config.repos) for (const issue of await listSessionIssues(api, repo, config)) await track(repo, issue.number);
  ready = true;

  const each = async (what: string, fn: (t: SessionTracker) => Promise<unknown>, kind?: "incremental" | "reconcile") => {
    for (const t of trackers.values()) {
      try {
        await fn(t);
        if (kind) metrics.polls.inc({ kind, result: "ok" });
      } catch (e) {
        if (kind) metrics.polls.inc({ kind, result: "failed" });
        log.warn({ err: e, issue: t.key }, `${what} failed; will try again next period`);
      }
    }
  };
  const bot: Bot = {
    url,
    server,
    metrics,
    trackers: () => [...trackers.values()],
    tracker: (r, n) => trackers.get(keyOf(r, n)),
    track,
    pollAll: () => each("poll", (t) => t.poll(), "incremental"),
    reconcileAll: () => each("reconcile", (t) => t.reconcile(), "reconcile"),
    checkLiveness: () => each("liveness check", (t) => t.checkLiveness()),
    flushDashboards: async () => {
      for (const t of trackers.values()) await t.dashboard.flush();
    },
    idle: async () => {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    stop: async () => {
      timers.forEach(clearInterval);
      for (const t of trackers.values()) t.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const every = (ms: number, fn: () => Promise<void>) => {
    if (ms <= 0) return null;
    let busy = false;
    const h = setInterval(() => {
      if (busy) return; // never overlap a slow period with the next
      busy = true;
      void fn().finally(() => (busy = false));
    }, ms);
    h.unref();
    return h;
  };
  const timers = [every(config.pollIntervalMs, bot.pollAll), every(config.reconcileIntervalMs, bot.reconcileAll), every(config.livenessIntervalMs, bot.checkLiveness)].filter(
    (t): t is NodeJS.Timeout => t !== null,
  );
  await bot.checkLiveness();
  for (const t of trackers.values()) t.dashboard.markDirty();
  return bot;
}
