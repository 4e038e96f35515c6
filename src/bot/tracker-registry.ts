import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import type { TrustPolicy } from "../projection/index.ts";
import type { BotConfig } from "./bot-config.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { SessionTracker } from "./session-tracker.ts";
import { createSessionTracker } from "./assemble-tracker.ts";
import { IssueLease } from "./replicas/issue-lease.ts";
import type { ReplicaCoordinator } from "./replicas/replica-coordinator.ts";
import type { BotState } from "../bot-state/index.ts";
import { issueKey } from "../bot-state/index.ts";
import { AnomalyLog } from "./anomaly-log.ts";

export interface TrackerRegistryDeps {
  api: IssueHost;
  config: BotConfig;
  policy: TrustPolicy;
  selfLogin: string;
  logger: Logger;
  metrics: BotMetrics;
  now: () => Date;
  store: BotState;
  /** This process's name in leases (host, pid, random). */
  holder: string;
  /** Replicas on a shared PostgreSQL store (see ReplicaCoordinator). */
  replica?: Pick<ReplicaCoordinator, "mayTake" | "beforeStart" | "fencedWrite">;
}

/**
 * The session issues the bot watches, one SessionTracker each, keyed by
 * owner/repo#issue (case-insensitive, as Forgejo's names are). A tracker is
 * registered only after its first full read, and two callers asking for the same
 * new issue at once share that read.
 */
export class TrackerRegistry {
  private readonly trackers = new Map<string, SessionTracker>();
  private readonly pending = new Map<string, Promise<SessionTracker>>();
  /** One per process: an anomaly is logged once, whichever tracker (or rollover successor) lists it. */
  private readonly anomalyLog: AnomalyLog;

  constructor(private readonly d: TrackerRegistryDeps) {
    this.anomalyLog = new AnomalyLog(undefined, d.config.trustedAuthors);
  }

  static keyOf(repo: RepoRef, issue: number): string {
    return `${repo.owner}/${repo.repo}#${issue}`.toLowerCase();
  }

  /** Whether deliveries from this repository concern the bot at all. */
  watches(repo: RepoRef): boolean {
    return this.d.config.repos.some((x) => x.owner.toLowerCase() === repo.owner.toLowerCase() && x.repo.toLowerCase() === repo.repo.toLowerCase());
  }

  get(repo: RepoRef, issue: number): SessionTracker | undefined {
    return this.trackers.get(TrackerRegistry.keyOf(repo, issue));
  }

  all(): SessionTracker[] {
    return [...this.trackers.values()];
  }

  /** Start or find the tracker of an issue (reconciles it first). */
  track(repo: RepoRef, issue: number): Promise<SessionTracker> {
    const k = TrackerRegistry.keyOf(repo, issue);
    const existing = this.trackers.get(k);
    if (existing) return Promise.resolve(existing);
    const pending = this.pending.get(k);
    if (pending) return pending;
    const p = this.start(repo, issue, k).finally(() => this.pending.delete(k));
    this.pending.set(k, p);
    return p;
  }

  /** Stop every tracker; give up their leases so another process takes over at once. */
  async stopAll(): Promise<void> {
    for (const t of this.trackers.values()) {
      t.stop();
      await t.maintained();
      await t.entriesStored();
      await t.storeSealedState().catch((e: unknown) => this.d.logger.warn({ err: e, issue: t.key }, "could not store the projection state; the next start parses every comment"));
      await t.lease.release().catch((e: unknown) => this.d.logger.warn({ err: e, issue: t.key }, "could not release the lease; it runs out by itself"));
    }
  }

  private async start(repo: RepoRef, issue: number, k: string): Promise<SessionTracker> {
    const { config, logger } = this.d;
    let tracker: SessionTracker | null = null;
    const replica = this.d.replica;
    const lease = new IssueLease({
      store: this.d.store,
      name: issueKey(repo, issue),
      holder: this.d.holder,
      ttlMs: config.leaseTtlMs,
      logger: logger.child({ issue: k }),
      onAcquired: () => tracker?.dashboard.markDirty(),
      ...(replica ? { mayTake: () => replica.mayTake() } : {}),
    });
    const t = createSessionTracker({
      store: this.d.store,
      lease,
      rollover: { title: config.title, label: config.label, rolloverAt: config.rolloverAt, track: (n) => this.track(repo, n) },
      compaction: { retentionMs: config.healthRetentionMs, intervalMs: config.compactionIntervalMs },
      api: this.d.api,
      repo,
      issue,
      policy: this.d.policy,
      selfLogin: this.d.selfLogin,
      dashboardIntervalMs: config.dashboardIntervalMs,
      ...(config.resumeIndexInlineMaxBytes !== undefined ? { resumeIndexInlineMaxBytes: config.resumeIndexInlineMaxBytes } : {}),
      ...(config.dashboardHoldMs !== undefined ? { dashboardHoldMs: config.dashboardHoldMs } : {}),
      liveness: config.liveness,
      // The ignored-authors line names CHECKPOST_TRUSTED_AUTHORS as set here; the help links follow CHECKPOST_DOCS_URL.
      dashboard: { trustedAuthors: config.trustedAuthors, ...(config.docsUrl ? { docsUrl: config.docsUrl } : {}) },
      staleAlerts: config.staleAlerts,
      ...(config.readWindowSize ? { readWindowSize: config.readWindowSize } : {}),
      logger: logger.child({ issue: k }),
      anomalyLog: this.anomalyLog,
      metrics: this.d.metrics,
      now: this.d.now,
      ...(replica ? { fencedWrite: <T>(kind: string, write: () => Promise<T>) => replica.fencedWrite(lease, this.d.holder, kind, write) } : {}),
    });
    tracker = t;
    // Replicas: where this tracker's change feed starts, taken before it reads the store.
    await replica?.beforeStart(t);
    await lease.tick();
    const from = await t.start();
    this.trackers.set(k, t);
    logger.info({ issue: k, comments: t.projection.snapshot().comments, from, writer: lease.current() !== null }, "watching session issue");
    return t;
  }
}
