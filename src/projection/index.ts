export { CommentRecordSchema, CommentEventSchema, TrustPolicySchema } from "./comment-event.ts";
export type { CommentRecord, CommentEvent, TrustPolicy } from "./comment-event.ts";
export { createProjection, MAX_UNTRUSTED_AUTHORS_LISTED } from "./create-projection.ts";
export type { HistoryRequest, Projection, ProjectionOptions, RestoredComment, SealedEntry, SealedState } from "./create-projection.ts";
export { projectComments } from "./project-comments.ts";
export { entryKey } from "./entry-key.ts";
export { MAX_INTERVALS, MAX_NOT_USED, RECENT_CHECKPOINTS } from "./projection-snapshot.ts";
export { directiveOf } from "./directive-of.ts";
export { DEFAULT_LEGACY_WRITERS, LegacyWritersSchema, isLegacyCheckpoint } from "./legacy-writers.ts";
export type { LegacyWriters } from "./legacy-writers.ts";
export type {
  AgentEntry,
  Anomaly,
  AnomalyKind,
  ControlRef,
  Directive,
  EntryControl,
  RecentCheckpoint,
  EntryCounts,
  HealthState,
  LatestCheckpoint,
  NotUsedCheckpoint,
  ProjectionSnapshot,
  ResumeAnswer,
} from "./projection-snapshot.ts";
export { liveness, joinSignals, DEFAULT_LIVENESS_OPTIONS } from "./liveness.ts";
export type { Liveness, LivenessOptions, LivenessState } from "./liveness.ts";
export { detectTransitions } from "./detect-transitions.ts";
export type { LivenessTransition } from "./detect-transitions.ts";
export { decideResume, decideResumeFromComments, phaseMapOf, resumeAnswerOf } from "./resume-decision.ts";
export type { NamedPhaseMap, ResumeDecision, ResumeDecisionPolicy } from "./resume-decision.ts";
export { freshnessOf } from "./freshness.ts";
export type { Freshness } from "./freshness.ts";
