import type { Logger } from "pino";
import { forgejoTime } from "../forgejo/index.ts";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import { createProjection, detectTransitions, entryKey, liveness } from "../projection/index.ts";
import type { CommentEvent, CommentRecord, LivenessOptions, LivenessState, LivenessTransition, Projection, TrustPolicy } from "../projection/index.ts";
import { renderDashboard } from "../dashboard/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../store/index.ts";
import { DashboardWriter } from "./dashboard-writer.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import { alertBody, parseAlert } from "./stale-alert.ts";
import type { TrackerSync } from "./tracker-sync.ts";

export interface TrackerOptions {
  api: ForgejoApi;
  repo: RepoRef;
  issue: number;
  policy: TrustPolicy;
  /** The bot's own login: its alert comments are recognised, its body edits ignored. */
  selfLogin: string;
  dashboardIntervalMs: number;
  liveness: Partial<LivenessOptions>;
  staleAlerts: boolean;
  /** See readAllComments. */
  readWindowSize?: number;
  logger: Logger;
  metrics: BotMetrics;
  now?: () => Date;
  /** Replicas on a shared store: store before folding; only the lease holder writes to Forgejo. */
  sync?: TrackerSync;
}

/**
 * One watched session issue: its live projection, its dashboard writer, its
 * poll watermark and its agents' liveness. Every source of comments (webhook,
 * poll, reconcile) goes through `apply`, which is idempotent, so the same
 * comment seen twice changes nothing.
 */
export class SessionTracker {
  readonly projection: Projection;
  readonly dashboard: DashboardWriter;
  /** Newest `updated_at` seen (ms), for the next incremental poll. */
  private pollFromMs = 0;
  private states: Record<string, LivenessState> = {};
  /** agent+session+lastSignalAt alerts already posted (recognised from our own comments too). */
  private readonly alerted = new Set<string>();
  private readonly now: () => Date;

  constructor(readonly o: TrackerOptions) {
    this.projection = createProjection(o.policy);
    this.now = o.now ?? (() => new Date());
    this.dashboard = new DashboardWriter({
      api: o.api,
      repo: o.repo,
      issue: o.issue,
      minIntervalMs: o.dashboardIntervalMs,
      logger: o.logger,
      metrics: o.metrics,
      render: () => renderDashboard(this.projection.snapshot(), this.now(), { liveness: o.liveness }),
      ...(o.sync ? { sync: o.sync } : {}),
    });
  }

  get key(): string {
    return `${this.o.repo.owner}/${this.o.repo.repo}#${this.o.issue}`;
  }

  /** Fold events; mark the dashboard dirty when the projection changed. */
  apply(events: CommentEvent[]): boolean {
    for (const e of events) if (e.type === "upsert") this.noteComment(e.comment);
    const changed = this.projection.applyAll(events);
    if (changed) this.afterChange();
    return changed;
  }

  /**
   * Store events in the shared store (if any), then fold what changed there.
   * Rejects, folding nothing, when the store is unavailable.
   */
  async ingest(events: CommentEvent[], deliveryId: string | null = null): Promise<boolean> {
    return this.apply(this.o.sync ? await this.o.sync.store(events, deliveryId) : events);
  }

  /** Full re-read: the only way to notice deletions without webhooks. */
  async reconcile(): Promise<boolean> {
    if (this.o.sync) return this.reconcileShared(this.o.sync);
    // Folded response by response: the whole list is never held (50k comments are ~80 MiB of JSON).
    const listed = new Set<number>();
    let changed = false;
    await forEachCommentBatch(
      this.o.api,
      this.o.repo,
      this.o.issue,
      (batch) => {
        const events: CommentEvent[] = batch.map((c) => {
          listed.add(c.id);
          const comment = toCommentRecord(c);
          this.noteComment(comment);
          return { type: "upsert", comment };
        });
        changed = this.projection.applyAll(events) || changed;
      },
      this.o.readWindowSize ? { windowSize: this.o.readWindowSize } : {},
    );
    changed = this.projection.retainOnly(listed) || changed;
    if (changed) this.afterChange();
    return changed;
  }

  /** Reconcile into the shared store: each response stored, then what changed folded; deletions stored as deletes. */
  private async reconcileShared(sync: TrackerSync): Promise<boolean> {
    const listed = new Set<number>();
    let stored = Promise.resolve(false);
    await forEachCommentBatch(
      this.o.api,
      this.o.repo,
      this.o.issue,
      (batch) => {
        const events: CommentEvent[] = batch.map((c) => {
          listed.add(c.id);
          return { type: "upsert", comment: toCommentRecord(c) };
        });
        stored = stored.then(async (changed) => (await this.ingest(events)) || changed);
      },
      this.o.readWindowSize ? { windowSize: this.o.readWindowSize } : {},
    );
    let changed = await stored;
    const gone = (await sync.liveIds()).filter((id) => !listed.has(id));
    if (gone.length) changed = (await this.ingest(gone.map((commentId) => ({ type: "delete", commentId })))) || changed;
    return changed;
  }

  /**
   * Incremental read. `since` filters on updated_at in whole seconds, so the
   * boundary second is read again; the projection ignores what it already holds.
   */
  async poll(): Promise<boolean> {
    if (this.pollFromMs === 0) return this.reconcile();
    const since = forgejoTime(this.pollFromMs);
    const comments = await this.o.api.listComments(this.o.repo, this.o.issue, { since });
    return this.ingest(comments.map((comment) => ({ type: "upsert", comment: toCommentRecord(comment) })));
  }

  /** Re-evaluate liveness; returns the transitions (each logged, shown and alerted once). */
  async checkLiveness(): Promise<LivenessTransition[]> {
    const now = this.now();
    const next: Record<string, LivenessState> = {};
    const entries = this.projection.snapshot().entries;
    for (const e of entries) next[entryKey(e.agent, e.session)] = liveness(e, now, this.o.liveness).state;
    const transitions = detectTransitions(this.states, next).filter((t) => t.from !== null || t.to !== "active");
    this.states = next;
    for (const t of transitions) {
      const entry = entries.find((e) => entryKey(e.agent, e.session) === t.key);
      this.o.metrics.transitions.inc({ to: t.to ?? "gone" });
      this.o.logger.info({ issue: this.key, agent: entry?.agent, session: entry?.session, from: t.from, to: t.to }, `agent is now ${t.to ?? "gone"}`);
      if (this.o.staleAlerts && entry && (t.to === "stale" || t.to === "silent")) {
        const alertKey = `${t.key}\u0000${t.to}\u0000${entry.lastSignalAt ?? ""}`;
        const sync = this.o.sync;
        if (!this.alerted.has(alertKey) && (!sync || sync.leads())) {
          this.alerted.add(alertKey);
          const l = liveness(entry, now, this.o.liveness);
          const post = () => this.o.api.createComment(this.o.repo, this.o.issue, alertBody(entry, t.to as "stale" | "silent", l, now));
          // Replicas: only the lease holder alerts, once across all replicas (at most once if it dies between).
          if (!sync) await post();
          else if (await sync.claimAlert(alertKey)) await sync.leaderWrite("alert", post);
        }
      }
    }
    if (transitions.length) this.dashboard.markDirty();
    return transitions;
  }

  livenessStates(): Readonly<Record<string, LivenessState>> {
    return this.states;
  }

  stop(): void {
    this.dashboard.stop();
  }

  private noteComment(c: CommentRecord): void {
    const t = Date.parse(c.updatedAt);
    if (t > this.pollFromMs) this.pollFromMs = t;
    if (c.author.toLowerCase() === this.o.selfLogin.toLowerCase()) {
      const key = parseAlert(c.body);
      if (key) this.alerted.add(key);
    }
  }

  /** Kept off the delivery hot path: gauges are refreshed when /metrics is scraped. */
  private afterChange(): void {
    this.dashboard.markDirty();
  }

  /** Refresh this issue's gauges (called by the /metrics handler). */
  updateGauges(): void {
    const snap = this.projection.snapshot();
    this.o.metrics.comments.set({ issue: this.key }, snap.comments);
    this.o.metrics.anomalies.set({ issue: this.key }, snap.anomalies.length);
  }
}
