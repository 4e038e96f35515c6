import type { Logger } from "pino";
import { forgejoTime } from "../forgejo/index.ts";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import { createProjection, detectTransitions, entryKey, liveness } from "../projection/index.ts";
import type { AgentEntry, CommentEvent, CommentRecord, LivenessOptions, LivenessState, LivenessTransition, Projection, TrustPolicy } from "../projection/index.ts";
import { renderDashboard, resumeIndexScope } from "../dashboard/index.ts";
import type { RenderDashboardOptions } from "../dashboard/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../store/index.ts";
import { DashboardWriter } from "./dashboard-writer.ts";
import { ControlDesk } from "./control-desk.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import { alertBody, parseAlert } from "./stale-alert.ts";

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
  /** Dashboard options (docs link, bot URL for "How to resume", row cap). */
  dashboard?: Pick<RenderDashboardOptions, "docsUrl" | "apiUrl" | "maxRows">;
  /** See readAllComments. */
  readWindowSize?: number;
  logger: Logger;
  metrics: BotMetrics;
  now?: () => Date;
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
  /** People's commands (slash comments, dashboard checkboxes) → [CONTROL] comments. */
  readonly controls: ControlDesk;
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
      render: () => this.renderSection(),
    });
    this.controls = new ControlDesk({
      api: o.api,
      repo: o.repo,
      issue: o.issue,
      projection: this.projection,
      selfLogin: o.selfLogin,
      ...(o.policy.signingKey !== undefined ? { signingKey: o.policy.signingKey } : {}),
      logger: o.logger,
      metrics: o.metrics,
      now: this.now,
      applyOwn: (c) => void this.apply([{ type: "upsert", comment: toCommentRecord(c) }]),
      refreshDashboard: async () => {
        this.dashboard.markDirty();
        await this.dashboard.flush();
      },
    });
  }

  /** The dashboard section as it would be written now. */
  renderSection(): string {
    const o = this.o;
    return renderDashboard(this.projection.snapshot(), this.now(), {
      liveness: o.liveness,
      ...o.dashboard,
      ...(o.policy.signingKey ? { resumeIndexSigning: { key: o.policy.signingKey, scope: resumeIndexScope(o.repo.owner, o.repo.repo, o.issue) } } : {}),
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

  /** Full re-read: the only way to notice deletions without webhooks. */
  async reconcile(): Promise<boolean> {
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

  /**
   * Incremental read. `since` filters on updated_at in whole seconds, so the
   * boundary second is read again; the projection ignores what it already holds.
   */
  async poll(): Promise<boolean> {
    if (this.pollFromMs === 0) return this.reconcile();
    const since = forgejoTime(this.pollFromMs);
    const comments = await this.o.api.listComments(this.o.repo, this.o.issue, { since });
    return this.apply(comments.map((comment) => ({ type: "upsert", comment: toCommentRecord(comment) })));
  }

  /** Re-evaluate liveness; returns the transitions (each logged, shown and alerted once). */
  async checkLiveness(): Promise<LivenessTransition[]> {
    const now = this.now();
    const next: Record<string, LivenessState> = {};
    // Only entries with a trusted signal have a liveness state (and so alerts and metrics): the
    // others never signalled, and may be named by anyone (issue 9). A map keeps this O(entries).
    const entries = new Map<string, AgentEntry>();
    for (const e of this.projection.snapshot().entries) {
      if (e.lastSignalAt === null) continue;
      const k = entryKey(e.agent, e.session);
      entries.set(k, e);
      next[k] = liveness(e, now, this.o.liveness).state;
    }
    const transitions = detectTransitions(this.states, next).filter((t) => t.from !== null || t.to !== "active");
    this.states = next;
    for (const t of transitions) {
      const entry = entries.get(t.key);
      this.o.metrics.transitions.inc({ to: t.to ?? "gone" });
      this.o.logger.info({ issue: this.key, agent: entry?.agent, session: entry?.session, from: t.from, to: t.to }, `agent is now ${t.to ?? "gone"}`);
      if (this.o.staleAlerts && entry && (t.to === "stale" || t.to === "silent")) {
        const alertKey = `${t.key}\u0000${t.to}\u0000${entry.lastSignalAt ?? ""}`;
        if (!this.alerted.has(alertKey)) {
          this.alerted.add(alertKey);
          const l = liveness(entry, now, this.o.liveness);
          await this.o.api.createComment(this.o.repo, this.o.issue, alertBody(entry, t.to, l, now));
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
