import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import type { Projection } from "../projection/index.ts";
import type { BotState } from "../bot-state/index.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { DashboardWriter } from "./upkeep/dashboard-writer.ts";
import type { ControlDesk } from "./controls/control-desk.ts";
import type { BodyWatch } from "./controls/body-watch.ts";
import type { EntryPersistence } from "./ingest/entry-persistence.ts";
import type { LivenessAlerts } from "./alerts/liveness-alerts.ts";
import type { IssueMetaCell } from "./upkeep/issue-meta.ts";
import type { TrackerUpkeep } from "./upkeep/tracker-upkeep.ts";
import type { IssueLease } from "./replicas/issue-lease.ts";
import type { OwnComments } from "./tracker-ports.ts";
import type { ReadClaimCell } from "./ingest/read-claim.ts";

// The shapes a SessionTracker is built from (assemble-tracker.ts makes them; session-tracker.ts takes them).

/** What the tracker itself uses: the issue on its host and in the store, its lease, and the registry's track. */
export interface TrackerPorts {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  /** owner/repo#issue, for logs and metrics. */
  key: string;
  /** The store's key of this issue. */
  storeKey: string;
  store: Pick<BotState, "comments" | "applyDelivery" | "watermark" | "projectionState">;
  lease: IssueLease;
  /** The bot's own login: its alert comments are read whole on a restart. */
  selfLogin: string;
  logger: Pick<Logger, "info" | "warn" | "debug">;
  metrics: Pick<BotMetrics, "comments" | "anomalies">;
  now: () => Date;
  /** See readAllComments. */
  readWindowSize?: number;
  /** Start watching another issue of the chain (a follower's successor: the tracker registry). */
  track: (issue: number) => Promise<unknown>;
}

/** The parts a tracker is assembled from (assemble-tracker.ts), each built with only the ports it uses. */
export interface TrackerParts {
  projection: Projection;
  dashboard: DashboardWriter;
  /** People's commands (slash comments, dashboard checkboxes) → [CONTROL] comments. */
  controls: ControlDesk;
  body: BodyWatch;
  meta: IssueMetaCell;
  upkeep: TrackerUpkeep;
  alerts: LivenessAlerts;
  entries: EntryPersistence;
  /** The bot's own comments posted by a part, to fold at once. */
  ownComments: OwnComments;
  /** "Complete up to", moved by this tracker's reads, read by the dashboard section. */
  claim: ReadClaimCell;
}
