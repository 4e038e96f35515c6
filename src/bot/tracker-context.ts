import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import type { LivenessOptions, Projection, TrustPolicy } from "../projection/index.ts";
import type { RenderDashboardOptions } from "../dashboard/index.ts";
import type { BotState } from "../bot-state/index.ts";
import type { AnomalyLog } from "./anomaly-log.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { DashboardWriter } from "./upkeep/dashboard-writer.ts";
import type { IssueLease } from "./replicas/issue-lease.ts";
import type { RolloverDeps } from "./upkeep/issue-rollover.ts";

export interface TrackerOptions {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  policy: TrustPolicy;
  /** The bot's own login: its alert comments are recognised, its body edits ignored. */
  selfLogin: string;
  dashboardIntervalMs: number;
  /** Largest resume index kept in the body (default RESUME_INDEX_INLINE_MAX_BYTES); a larger one goes to the index comment. */
  resumeIndexInlineMaxBytes?: number;
  liveness: Partial<LivenessOptions>;
  staleAlerts: boolean;
  /** Dashboard options (docs link, bot URL for "How to resume", row cap). */
  dashboard?: Pick<RenderDashboardOptions, "docsUrl" | "apiUrl" | "maxRows" | "trustedAuthors">;
  /** See readAllComments. */
  readWindowSize?: number;
  logger: Logger;
  metrics: BotMetrics;
  now?: () => Date;
  /** Where the comments folded so far are kept: a restart continues from here. */
  store: BotState;
  /** Whether this process is the issue's one writer (dashboard, alerts). */
  lease: IssueLease;
  /** Replicas: each Forgejo write (dashboard, alert) run fenced by the lease's token (see DashboardWriter). */
  fencedWrite?: <T>(kind: string, write: () => Promise<T>) => Promise<T>;
  /** Rollover settings and how to start watching a successor. */
  rollover: Pick<RolloverDeps, "title" | "label" | "rolloverAt" | "track">;
  /** Health compaction: retention (0: off) and period. */
  compaction: { retentionMs: number; intervalMs: number };
  /** Anomalies already logged by this process (shared by its trackers); default: this tracker's own. */
  anomalyLog?: AnomalyLog;
  /** After a person's edit of the body, dashboard writes wait this long (ms) so their next tick is not stale; default DEFAULT_DASHBOARD_HOLD_MS. */
  dashboardHoldMs?: number;
}

/** What the parts of a SessionTracker share: its options, its projection, its clock and its names. */
export interface TrackerContext {
  readonly o: TrackerOptions;
  readonly projection: Projection;
  readonly dashboard: DashboardWriter;
  /** The injected clock (TrackerOptions.now): every time the tracker reasons about is read from it. */
  readonly now: () => Date;
  /** The store's key of this issue. */
  readonly storeKey: string;
  /** owner/repo#issue, for logs and metrics. */
  readonly key: string;
}
