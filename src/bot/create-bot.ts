import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { systemClock } from "../clock.ts";
import type { OpenedHost, RepoRef } from "../ports/issue-host.ts";
import { listSessionIssues } from "../session-client/index.ts";
import { createBotMetrics } from "./bot-metrics.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { BotConfig } from "./bot-config.ts";
import { startTimers } from "./bot-timers.ts";
import { createDeliveryReceiver } from "./ingest/delivery-receiver.ts";
import type { DeliveryReceiver } from "./ingest/delivery-receiver.ts";
import { ApiAccessGuard } from "./api/api-access.ts";
import { handleApi } from "./api/http-api.ts";
import type { SessionTracker } from "./session-tracker.ts";
import type { WatchedIssue } from "./tracker-ports.ts";
import { TrackerRegistry } from "./tracker-registry.ts";
import { selfCommandIgnored } from "./controls/control-desk.ts";
import { ReplicaCoordinator } from "./replicas/replica-coordinator.ts";
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { BotState, ReplicaStore } from "../bot-state/index.ts";
import { DEFAULT_LEGACY_WRITERS } from "../projection/index.ts";
import { warnUntrustedWriters } from "./trust-at-start.ts";

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
  /** Renew held leases, try to take free ones (the lease timer calls this). */
  renewLeases(): Promise<void>;
  /** The bot's durable state. */
  store: BotState;
  /** With CHECKPOST_DATABASE_URL: this replica's feed, lease share and fenced writes. */
  replica?: ReplicaCoordinator;
  /** Write every pending dashboard now. */
  flushDashboards(): Promise<void>;
  /** Resolves when the deliveries received so far are handled. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What the bot is given by its composition root (src/app/start-bot.ts): it opens nothing itself.
 * The caller closes the stores after `stop()`.
 */
export interface BotDeps {
  logger: Logger;
  now?: () => Date;
  /** The issue host as its registry entry opened it: the port, its API root (deliveries name the instance by it), its delivery reader and verifier. */
  host: OpenedHost;
  /** The bot's durable state, with the writer leases (the caller opens and closes it). */
  store: BotState;
  /** With CHECKPOST_DATABASE_URL: the same store shared by replicas (feed, heartbeat, fenced write log). */
  shared?: ReplicaStore;
}

/**
 * The bot: the delivery receiver verifies and routes webhooks; the tracker
 * registry holds each session issue's projection; timers poll, reconcile and
 * check liveness; the HTTP API answers from memory.
 */
export async function createBot(config: BotConfig, deps: BotDeps): Promise<Bot> {
  const log = deps.logger;
  const now = deps.now ?? systemClock;
  const metrics = createBotMetrics();
  const api = deps.host.api;
  const self = (await api.currentUser()).login;
  // Design (issue 19.8): the bot never runs commands made with its own login; said at start, in doctor and per command.
  log.warn({ login: self }, selfCommandIgnored(self));
  const policy = {
    trustedAuthors: new Set([self, ...config.trustedAuthors].map((s) => s.toLowerCase())),
    ...(config.signingKey ? { signingKey: config.signingKey } : {}),
    legacyWriters: config.legacyWriters ?? DEFAULT_LEGACY_WRITERS,
  };
  // CHECKPOST_DATABASE_URL: replicas share one PostgreSQL store (docs/scale-out.md).
  const store = deps.store;
  const shared = deps.shared;
  const holder = config.database ? `${config.database.replicaId}:${randomUUID().slice(0, 8)}` : `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const replica =
    config.database && shared ? new ReplicaCoordinator(shared, { replicaId: holder, feedIntervalMs: config.database.feedIntervalMs, leaseTtlMs: config.leaseTtlMs, logger: log, metrics }) : undefined;
  const registry = new TrackerRegistry({ api, config, policy, selfLogin: self, logger: log, metrics, now, store, holder, ...(replica ? { replica } : {}) });
  // Before discovery: the lease share counts the trackers already started.
  replica?.attach(() => registry.all());
  const receiver = await createDeliveryReceiver(config, {
    registry,
    clientApiUrl: deps.host.apiUrl,
    readDelivery: deps.host.readDelivery,
    verifyDelivery: deps.host.verifyDelivery,
    selfLogin: self,
    logger: log,
    metrics,
  });
  let ready = false;
  const guard = new ApiAccessGuard(config.apiTokens);
  if (!guard.configured) log.warn("CHECKPOST_API_TOKEN is not set: /api/* answers 401 to every request and /metrics is served on loopback only");
  const server = await listen(config, log, receiver, (req, res) =>
    handleApi(req, res, {
      trackers: () => registry.all(),
      ready: () => ready,
      selfLogin: self,
      ...(shared ? { storeAvailable: () => shared.available } : {}),
      ...(replica ? { readThrough: (t: WatchedIssue) => replica.readThrough(t) } : {}),
      metrics,
      config,
      now,
      guard,
    }),
  );
  const addr = server.address() as AddressInfo;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${addr.port}`;

  // Once, at warn: writers whose checkpoints this trust setting would ignore (an agent left out of CHECKPOST_TRUSTED_AUTHORS).
  await warnUntrustedWriters(api, config.repos, self, config.trustedAuthors, log);
  // Discover the session issues of every watched repo and read each once.
  for (const repo of config.repos) for (const issue of await listSessionIssues(api, repo, config)) await registry.track(repo, issue.number);
  ready = true;

  const each = async (what: string, fn: (t: SessionTracker) => Promise<unknown>, kind?: "incremental" | "reconcile") => {
    for (const t of registry.all()) {
      try {
        await fn(t);
        if (kind) metrics.polls.inc({ kind, result: "ok" });
      } catch (e) {
        if (kind) metrics.polls.inc({ kind, result: "failed" });
        log.warn({ err: e, issue: t.key }, `${what} failed; will try again next period`);
      }
    }
  };
  // Replicas: an issue's lease holder reads Forgejo for it; the others fold the shared store's feed,
  // and poll too while the holder's lease lapses (IssueLease.leaderLapsed), so a killed leader does not stop ingest for a TTL.
  const reads = async (t: SessionTracker) => {
    if (!replica || t.lease.current() !== null) return true;
    const lapsed = await t.lease.leaderLapsed();
    if (lapsed) metrics.polls.inc({ kind: "follower", result: "ok" });
    return lapsed;
  };
  const pollAll = () => each("poll", async (t) => (await reads(t)) && t.poll(), "incremental");
  const reconcileAll = () => each("reconcile", async (t) => (await reads(t)) && t.reconcile(), "reconcile");
  // A person's tick is a body edit: read the body alone more often than the comments, so it is recorded
  // (the [CONTROL] comment, the directive at /api/resume) within seconds without a webhook (docs/dashboard.md).
  const pollBodies = () => each("body poll", async (t) => (await reads(t)) && t.pollBody());
  const checkLiveness = () => each("liveness check", (t) => t.checkLiveness());
  const renewLeases = () => each("lease renewal", (t) => t.lease.tick());
  // Replicas polling: followers look for a lapsing leader every sixth of the TTL and read Forgejo at once (not at their next poll).
  const followLapsed = () => each("follower read", async (t) => t.lease.current() === null && (await reads(t)) && t.poll(), "incremental");
  const maintainAll = () => each("maintenance (rollover, compaction)", (t) => t.maintain());
  const stopTimers = startTimers([
    { everyMs: config.pollIntervalMs, run: pollAll },
    { everyMs: config.reconcileIntervalMs, run: reconcileAll },
    // Webhooks only (CHECKPOST_POLL_INTERVAL_MS=0): no polling of any kind.
    { everyMs: config.pollIntervalMs > 0 ? (config.bodyPollIntervalMs ?? 0) : 0, run: pollBodies },
    { everyMs: config.livenessIntervalMs, run: checkLiveness },
    { everyMs: Math.floor(config.leaseTtlMs / 3), run: renewLeases },
    { everyMs: replica && config.pollIntervalMs > 0 ? Math.max(250, Math.floor(config.leaseTtlMs / 6)) : 0, run: followLapsed },
    { everyMs: config.healthRetentionMs > 0 ? config.compactionIntervalMs : 0, run: maintainAll },
  ]);
  if (replica) {
    await replica.balance().catch((e: unknown) => log.warn({ err: e }, "first replica heartbeat failed; will try again"));
    replica.start();
  }
  await checkLiveness();
  for (const t of registry.all()) t.dashboard.markDirty();
  let stopped = false;

  return {
    url,
    server,
    metrics,
    trackers: () => registry.all(),
    tracker: (r, n) => registry.get(r, n),
    track: (r, n) => registry.track(r, n),
    pollAll,
    reconcileAll,
    checkLiveness,
    renewLeases,
    store,
    ...(replica ? { replica } : {}),
    flushDashboards: async () => {
      for (const t of registry.all()) await t.dashboard.flush();
    },
    idle: () => receiver.idle(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      stopTimers();
      await replica?.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await receiver.idle();
      await registry.stopAll();
    },
  };
}

/** The bot's one HTTP server: the webhook path goes to the receiver, the rest to the API, else 404. */
async function listen(
  config: BotConfig,
  log: Logger,
  receiver: DeliveryReceiver,
  api: (req: Parameters<DeliveryReceiver["receive"]>[0], res: Parameters<DeliveryReceiver["receive"]>[1]) => Promise<boolean>,
): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === config.webhookPath && req.method === "POST") {
        if (await receiver.receive(req, res)) return;
      } else if (await api(req, res)) return;
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    })().catch((e: unknown) => {
      log.error({ err: e }, "request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // A client that trickles its headers or body cannot hold a connection for Node's default 5 minutes.
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return server;
}
