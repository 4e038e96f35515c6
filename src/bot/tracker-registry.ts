import type { Logger } from "pino";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import type { TrustPolicy } from "../projection/index.ts";
import type { BotConfig } from "./bot-config.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { ReplicaCoordinator } from "./replica-coordinator.ts";
import { SessionTracker } from "./session-tracker.ts";

export interface TrackerRegistryDeps {
  api: ForgejoApi;
  config: BotConfig;
  policy: TrustPolicy;
  selfLogin: string;
  logger: Logger;
  metrics: BotMetrics;
  now: () => Date;
  /** Replicas on a shared store: each tracker's sync, and its first load (from the store instead of Forgejo). */
  replica?: Pick<ReplicaCoordinator, "syncFor" | "load">;
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

  constructor(private readonly d: TrackerRegistryDeps) {}

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

  stopAll(): void {
    for (const t of this.trackers.values()) t.stop();
  }

  private async start(repo: RepoRef, issue: number, k: string): Promise<SessionTracker> {
    const { config, logger } = this.d;
    const t = new SessionTracker({
      api: this.d.api,
      repo,
      issue,
      policy: this.d.policy,
      selfLogin: this.d.selfLogin,
      dashboardIntervalMs: config.dashboardIntervalMs,
      liveness: config.liveness,
      staleAlerts: config.staleAlerts,
      ...(config.readWindowSize ? { readWindowSize: config.readWindowSize } : {}),
      logger: logger.child({ issue: k }),
      metrics: this.d.metrics,
      now: this.d.now,
      ...(this.d.replica ? { sync: this.d.replica.syncFor(repo, issue) } : {}),
    });
    await (this.d.replica ? this.d.replica.load(t) : t.reconcile());
    this.trackers.set(k, t);
    logger.info({ issue: k, comments: t.projection.snapshot().comments }, "watching session issue");
    return t;
  }
}
