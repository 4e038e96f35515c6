import type { ControlAction, DirectiveKind, JsonValue } from "../protocol/index.ts";

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
  | "rejected-control"
  | "oversized";

/** Something a person should look at. `agent`/`session` are null when the comment does not say. */
export interface Anomaly {
  kind: AnomalyKind;
  commentId: number;
  agent: string | null;
  session: string | null;
  detail: string;
  htmlUrl?: string;
  /** untrusted-author lines of one author: the login, as written. */
  author?: string;
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

/** A trusted `[CONTROL]` comment in effect. */
export interface ControlRef {
  commentId: number;
  action: ControlAction;
  /** The login that gave the command, as recorded. */
  by: string | null;
  /** Server creation time of the control comment (ISO). */
  at: string;
  /** rewind/release: the epoch fence. */
  epoch?: number;
  /** rewind: the checkpoint gone back to. */
  to?: { commentId: number; id?: string; phase?: string };
  htmlUrl?: string;
}

/** The controls in effect for an agent+session (present on an entry only when one is). */
export interface EntryControl {
  /** Set by `pause`, cleared by `unpause`. */
  paused: ControlRef | null;
  /** Set by `hide`, cleared by the next trusted signal. */
  hidden: ControlRef | null;
  /** The last `rewind` or `release`, until a trusted checkpoint follows it. */
  pending: ControlRef | null;
}

/**
 * What an agent is told on `resume`/`save`: `pause` (stop and wait), `rewind`
 * (continue from `to`, under an epoch above `epoch`), `release` (the session is
 * free for another worker to take over). Pause wins over the others.
 */
export type Directive = ControlRef & { kind: DirectiveKind };

/** A trusted checkpoint in an entry's short history (newest first), a rewind target. */
export interface RecentCheckpoint {
  commentId: number;
  id?: string;
  phase: string;
  seq?: number;
  epoch?: number;
  createdAt: string;
  htmlUrl?: string;
}

/** Why a checkpoint newer than the resume point was not resumed from (see `AgentEntry.notUsed`). */
export interface NotUsedCheckpoint {
  commentId: number;
  id?: string;
  phase: string;
  epoch?: number;
  createdAt: string;
  htmlUrl?: string;
  /** The anomaly that refused it. */
  kind: Extract<AnomalyKind, "zombie" | "edited" | "unsigned" | "bad-signature" | "duplicate-id" | "untrusted-author">;
  /** Written by a 1.0 writer such as the seed's agents (no Id, Seq, Epoch or Signature). */
  legacy: boolean;
  /** zombie: the epoch fence it was below. */
  fence?: number;
  /** Why, in words, e.g. "legacy writer without Epoch below fence 2". */
  reason: string;
  /** Set when a setting decided: its current value and what to change to resume from this checkpoint. */
  policy?: { setting: "CHECKPOST_LEGACY_WRITERS"; value: "fence"; change: string };
}

/** How many not-used checkpoints an entry lists (the newest). */
export const MAX_NOT_USED = 5;

/** How many trusted checkpoints each entry lists in `recent`. */
export const RECENT_CHECKPOINTS = 5;

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
  /** The last few trusted checkpoints, newest first (absent when there is none). */
  recent?: RecentCheckpoint[];
  /** Controls in effect (absent when none is). */
  control?: EntryControl;
  /** Refused checkpoints newer than the resume point, newest first, at most MAX_NOT_USED (absent when none). */
  notUsed?: NotUsedCheckpoint[];
  /**
   * Kinds projected through their registry line's `project` hook (none of the protocol's own): the newest
   * trusted, unedited comment of each, by kind name (absent when none).
   */
  kinds?: Record<string, KindShown>;
}

/** A kind's newest trusted comment as its `project` hook shows it. */
export interface KindShown {
  commentId: number;
  createdAt: string;
  value: JsonValue;
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
  /** What a person asked of this agent+session through a `[CONTROL]` comment, or null. */
  directive: Directive | null;
  /** Checkpoints newer than the resume point that were not used, and why (newest first; empty when none). */
  not_used: NotUsedCheckpoint[];
}

/** How many signal intervals each entry keeps for liveness. */
export const MAX_INTERVALS = 20;
