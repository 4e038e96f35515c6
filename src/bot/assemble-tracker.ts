import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import { createProjection } from "../projection/index.ts";
import type { LivenessOptions, TrustPolicy } from "../projection/index.ts";
import type { RenderDashboardOptions } from "../dashboard/index.ts";
import type { BotState } from "../bot-state/index.ts";
import { issueKey } from "../bot-state/index.ts";
import { systemClock } from "../clock.ts";
import { AnomalyLog } from "./anomaly-log.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import { LivenessAlerts } from "./alerts/liveness-alerts.ts";
import { BodyWatch } from "./controls/body-watch.ts";
import { findChainRewindTarget } from "./controls/chain-rewind-target.ts";
import { ControlDesk } from "./controls/control-desk.ts";
import { EntryPersistence } from "./ingest/entry-persistence.ts";
import type { IssueLease } from "./replicas/issue-lease.ts";
import { dashboardSection } from "./upkeep/dashboard-section.ts";
import { DEFAULT_DASHBOARD_HOLD_MS, DashboardWriter } from "./upkeep/dashboard-writer.ts";
import { IssueMetaCell } from "./upkeep/issue-meta.ts";
import type { RolloverDeps } from "./upkeep/issue-rollover.ts";
import { TrackerUpkeep } from "./upkeep/tracker-upkeep.ts";
import { HOT_RECORDS, SessionTracker } from "./session-tracker.ts";
import { OwnComments } from "./tracker-ports.ts";
import { ReadClaimCell } from "./ingest/read-claim.ts";

/** Everything a tracker is made from: only the factory below sees all of it. */
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

/**
 * The factory of a SessionTracker (issue 31, item 3): it builds each part with only the ports that part
 * uses, and wires the parts to each other, never to the tracker: the dashboard writer's foreign edits
 * and written bodies go to the body watch, the control desk's refreshes to the writer, its unconfirmed
 * box changes to the meta cell, its own records to the OwnComments channel the tracker listens on. So
 * a part can be read, tested and changed with no tracker in sight (docs/architecture.md).
 */
export function createSessionTracker(o: TrackerOptions): SessionTracker {
  const now = o.now ?? systemClock;
  const storeKey = issueKey(o.repo, o.issue);
  const key = `${o.repo.owner}/${o.repo.repo}#${o.issue}`;
  const projection = createProjection(o.policy, { hotRecords: HOT_RECORDS });
  const ownComments = new OwnComments();
  const claim = new ReadClaimCell(o.api);
  const names = { repo: o.repo, issue: o.issue, storeKey, key };
  // The writer and the parts that mark it are made in this order; the arrows that run back (the body
  // watch, the meta cell) are closures over parts made below, called only once everything exists.
  const meta = new IssueMetaCell({ store: o.store, storeKey, key, lease: o.lease, logger: o.logger, dashboard: { markDirty: () => dashboard.markDirty() } });
  const section = dashboardSection({
    ...names,
    policy: o.policy,
    projection,
    meta,
    now,
    liveness: o.liveness,
    ...(o.dashboard ? { dashboard: o.dashboard } : {}),
    rolloverAt: o.rollover.rolloverAt,
    healthRetentionMs: o.compaction.retentionMs,
    claim,
  });
  const dashboard: DashboardWriter = new DashboardWriter({
    mayWrite: () => o.lease.holds(),
    ...(o.fencedWrite ? { fencedWrite: o.fencedWrite } : {}),
    api: o.api,
    repo: o.repo,
    issue: o.issue,
    minIntervalMs: o.dashboardIntervalMs,
    holdMs: o.dashboardHoldMs ?? DEFAULT_DASHBOARD_HOLD_MS,
    logger: o.logger,
    metrics: o.metrics,
    render: (ref) => section.render(ref),
    resumeIndex: {
      render: () => section.resumeIndex(),
      selfLogin: o.selfLogin,
      ...(o.resumeIndexInlineMaxBytes !== undefined ? { inlineMaxBytes: o.resumeIndexInlineMaxBytes } : {}),
    },
    // The body changed since our last write and no webhook told us: a person's edit seen by this read.
    onForeignEdit: (text, poster, updatedAt) => bodyWatch.onPolledBody(text, poster, updatedAt),
    onWritten: (text) => bodyWatch.written(text),
  });
  const controls = new ControlDesk({
    api: o.api,
    repo: o.repo,
    issue: o.issue,
    projection,
    selfLogin: o.selfLogin,
    ...(o.policy.signingKey !== undefined ? { signingKey: o.policy.signingKey } : {}),
    logger: o.logger,
    metrics: o.metrics,
    now,
    applyOwn: (c) => ownComments.emit(c),
    refreshDashboard: async () => {
      dashboard.markDirty();
      await dashboard.flush();
    },
    dashboardChanged: () => dashboard.markDirty(),
    store: o.store,
    storeKey,
    chainTarget: (agent, session, target) => findChainRewindTarget({ store: o.store, repo: o.repo, issue: o.issue, policy: o.policy }, agent, session, target),
    unconfirmed: (changes) => meta.addUnconfirmed(changes),
    commanded: (agent, session) => meta.settle(agent, session),
  });
  const bodyWatch = new BodyWatch({ ...names, api: o.api, store: o.store, lease: o.lease, logger: o.logger, dashboard, controls });
  const alerts = new LivenessAlerts({
    ...names,
    projection,
    now,
    liveness: o.liveness,
    staleAlerts: o.staleAlerts,
    selfLogin: o.selfLogin,
    metrics: o.metrics,
    logger: o.logger,
    lease: o.lease,
    store: o.store,
    postAlert: (text) => {
      const post = () => o.api.postRecord(o.repo, o.issue, text);
      return o.fencedWrite ? o.fencedWrite("alert", post) : post();
    },
    dashboard,
  });
  const entries = new EntryPersistence({ ...names, projection, store: o.store, logger: o.logger, now, anomalyLog: o.anomalyLog ?? new AnomalyLog() });
  const upkeep = new TrackerUpkeep({
    ...names,
    api: o.api,
    policy: o.policy,
    selfLogin: o.selfLogin,
    store: o.store,
    logger: o.logger,
    lease: o.lease,
    now,
    projection,
    rollover: o.rollover,
    compaction: o.compaction,
    ...(o.readWindowSize ? { readWindowSize: o.readWindowSize } : {}),
    meta,
  });
  return new SessionTracker(
    {
      ...names,
      api: o.api,
      store: o.store,
      lease: o.lease,
      selfLogin: o.selfLogin,
      logger: o.logger,
      metrics: o.metrics,
      now,
      ...(o.readWindowSize ? { readWindowSize: o.readWindowSize } : {}),
      track: o.rollover.track,
    },
    { projection, dashboard, controls, body: bodyWatch, meta, upkeep, alerts, entries, ownComments, claim },
  );
}
