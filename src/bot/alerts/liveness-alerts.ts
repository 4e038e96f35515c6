import { detectTransitions, entryKey, liveness } from "../../projection/index.ts";
import type { Logger } from "pino";
import type { BotState } from "../../bot-state/index.ts";
import type { AgentEntry, CommentRecord, LivenessOptions, LivenessState, LivenessTransition, Projection } from "../../projection/index.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import type { IssueLease } from "../replicas/issue-lease.ts";
import type { DashboardWriter } from "../upkeep/dashboard-writer.ts";
import { alertBody, parseAlert } from "./stale-alert.ts";

/** What LivenessAlerts uses: the projection it reads, where an alert is recorded and posted, the dashboard it marks. */
export interface LivenessAlertsDeps {
  projection: Pick<Projection, "snapshot">;
  now: () => Date;
  liveness: Partial<LivenessOptions>;
  /** Whether stale and silent agents get an alert comment (CHECKPOST_STALE_ALERTS). */
  staleAlerts: boolean;
  /** The bot's own login: its alert comments are recognised. */
  selfLogin: string;
  metrics: Pick<BotMetrics, "transitions">;
  logger: Pick<Logger, "info">;
  /** owner/repo#issue, for logs. */
  key: string;
  /** The store's key of this issue. */
  storeKey: string;
  lease: Pick<IssueLease, "current">;
  store: Pick<BotState, "recordAlert">;
  /** Post an alert comment on the issue (fenced by the lease's token with replicas). */
  postAlert: (body: string) => Promise<unknown>;
  /** A transition changes what the dashboard shows. */
  dashboard: Pick<DashboardWriter, "markDirty">;
}

/** One issue's agents' liveness states, and the stale/silent alerts the writer posts once each. */
export class LivenessAlerts {
  private states: Record<string, LivenessState> = {};
  /** agent+session+lastSignalAt alerts already posted (recognised from our own comments too). */
  private readonly alerted = new Set<string>();

  constructor(private readonly t: LivenessAlertsDeps) {}

  /** A comment seen: the bot's own alert comments are remembered, so they are not posted again. */
  noteComment(c: CommentRecord): void {
    if (c.author.toLowerCase() === this.t.selfLogin.toLowerCase()) {
      const key = parseAlert(c.body);
      if (key) this.alerted.add(key);
    }
  }

  /** Re-evaluate liveness; returns the transitions (each logged, shown and alerted once). */
  async check(): Promise<LivenessTransition[]> {
    const { projection, metrics, logger, lease, store } = this.t;
    const now = this.t.now();
    const next: Record<string, LivenessState> = {};
    // Only entries with a trusted signal have a liveness state (and so alerts and metrics): the
    // others never signalled, and may be named by anyone (issue 9). A map keeps this O(entries).
    const entries = new Map<string, AgentEntry>();
    for (const e of projection.snapshot().entries) {
      if (e.lastSignalAt === null) continue;
      const k = entryKey(e.agent, e.session);
      entries.set(k, e);
      next[k] = liveness(e, now, this.t.liveness).state;
    }
    const transitions = detectTransitions(this.states, next).filter((t) => t.from !== null || t.to !== "active");
    this.states = next;
    for (const t of transitions) {
      const entry = entries.get(t.key);
      metrics.transitions.inc({ to: t.to ?? "gone" });
      logger.info({ issue: this.t.key, agent: entry?.agent, session: entry?.session, from: t.from, to: t.to }, `agent is now ${t.to ?? "gone"}`);
      if (this.t.staleAlerts && entry && (t.to === "stale" || t.to === "silent")) {
        const alertKey = `${t.key}\u0000${t.to}\u0000${entry.lastSignalAt ?? ""}`;
        const fence = lease.current();
        // Only the lease holder alerts; recorded in the store (fenced) before posting, so no two processes post it.
        if (fence && !this.alerted.has(alertKey) && (await store.recordAlert(fence, this.t.storeKey, alertKey))) {
          this.alerted.add(alertKey);
          const l = liveness(entry, now, this.t.liveness);
          await this.t.postAlert(alertBody(entry, t.to, l, now));
        }
      }
    }
    if (transitions.length) this.t.dashboard.markDirty();
    return transitions;
  }

  current(): Readonly<Record<string, LivenessState>> {
    return this.states;
  }
}
