import type { JsonValue } from "../protocol/index.ts";

export type AnomalyKind =
  | "invalid"
  | "untrusted-author"
  | "edited"
  | "deleted-checkpoint"
  | "bad-signature"
  | "unsigned"
  | "zombie"
  | "seq-gap"
  | "seq-fork"
  | "duplicate-id"
  | "oversized";

/** Something a person should look at. `agent`/`session` are null when the comment does not say. */
export interface Anomaly {
  kind: AnomalyKind;
  commentId: number;
  agent: string | null;
  session: string | null;
  detail: string;
  htmlUrl?: string;
}

/** The checkpoint an agent+session resumes from. */
export interface LatestCheckpoint {
  commentId: number;
  id?: string;
  phase: string;
  seq?: number;
  epoch?: number;
  /** The writer's `Time:` as written; shown, never used to order. */
  timestamp: string | null;
  /** Server creation time (ISO, milliseconds, "Z"). */
  createdAt: string;
  data: JsonValue;
  htmlUrl?: string;
}

export interface HealthState {
  commentId: number;
  status: string;
  metrics: JsonValue;
  timestamp: string | null;
  createdAt: string;
  htmlUrl?: string;
}

export interface EntryCounts {
  /** Every checkpoint comment of this agent+session, believed or not. */
  checkpoints: number;
  /** Every health comment. */
  health: number;
  /** Unreadable `[CHECKPOINT]`/`[HEALTH]` comments naming this agent and session. */
  invalid: number;
  /** Checkpoints and health not believed (author, edit, signature, duplicate, zombie). */
  untrusted: number;
}

export interface AgentEntry {
  agent: string;
  session: string;
  latest: LatestCheckpoint | null;
  /** Highest epoch among authentic checkpoints (missing epoch = 0). */
  maxEpoch: number;
  counts: EntryCounts;
  health: HealthState | null;
  /** Server time of the newest trusted checkpoint or health, or null. */
  lastSignalAt: string | null;
  /** Up to the last 20 gaps (ms, server time) between consecutive trusted signals, oldest first. */
  intervalsMs: number[];
}

/**
 * Plain JSON: entries sorted by agent then session (code points), anomalies by
 * comment id then kind.
 */
export interface ProjectionSnapshot {
  v: 1;
  /** Highest id among live comments (0 if none). */
  watermark: number;
  /** Latest `updatedAt` among live comments (ISO), for Forgejo's `since`. */
  watermarkUpdatedAt: string | null;
  /** Live comments held (all kinds). */
  comments: number;
  entries: AgentEntry[];
  anomalies: Anomaly[];
}

export interface ResumeAnswer {
  resume_point: string;
  phase: string;
  state: JsonValue;
  checkpoint: { commentId: number; id?: string; seq?: number; epoch?: number } | null;
}

/** How many signal intervals each entry keeps for liveness. */
export const MAX_INTERVALS = 20;
