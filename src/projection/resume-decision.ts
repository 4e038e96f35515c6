import { BUILTIN_PHASE_MAPS } from "../protocol/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import type { CommentRecord, TrustPolicy } from "./comment-event.ts";
import { createProjection } from "./create-projection.ts";
import { resumeAnswerOf } from "./resume-answer.ts";
import { liveness } from "./liveness.ts";
import type { Liveness, LivenessOptions } from "./liveness.ts";
import type { AgentEntry, ResumeAnswer } from "./projection-snapshot.ts";
export { resumeAnswerOf };

/** A phase map and its name (for `map` in answers). */
export interface NamedPhaseMap {
  name: string;
  map: Readonly<PhaseMap>;
}

/** Everything besides the comments that decides an answer (the trust part is the projection's TrustPolicy). */
export interface ResumeDecisionPolicy {
  /**
   * The agent's phase map, as the caller chose it (`--map`, `?map=`, a maps
   * file). Undefined: the built-in map named like the agent, else none.
   * null: none, whatever the agent's name.
   */
  map?: NamedPhaseMap | null;
  /** Stale/silent thresholds (CHECKPOST_STALE_AFTER_MS, CHECKPOST_MIN_STALE_MS). */
  liveness?: Partial<LivenessOptions>;
  /** The clock, passed in: liveness is measured against it. */
  now: Date;
}

/** What every reader answers for one agent+session (docs/chain.md, "One resume decision"). */
export interface ResumeDecision extends ResumeAnswer {
  /** A phase map was applied; without one the agent resumes at its own phase, never silently at "start". */
  mapped: boolean;
  map?: string;
  /** Seq for the next save. */
  next_seq: number;
  /** Epoch to take over with: above the resume point, any directive's fence and every epoch seen. */
  epoch: number;
  liveness: Liveness;
}

/** The map an agent resumes under: the caller's choice, else the built-in map named like the agent, else none. */
export function phaseMapOf(agent: string, chosen?: NamedPhaseMap | null): NamedPhaseMap | null {
  if (chosen !== undefined) return chosen;
  return Object.hasOwn(BUILTIN_PHASE_MAPS, agent) ? { name: agent, map: BUILTIN_PHASE_MAPS[agent] as Readonly<PhaseMap> } : null;
}

/**
 * THE resume decision: every reader (/api/resume, `checkpost resume`, the
 * library, `checkpost status`, the dashboard) answers through this function,
 * from the entry its projection of the session chain holds. Pure.
 */
export function decideResume(agent: string, entry: AgentEntry | null, policy: ResumeDecisionPolicy): ResumeDecision {
  const map = phaseMapOf(agent, policy.map);
  const answer = resumeAnswerOf(entry, map?.map ?? null);
  const fence = entry?.maxEpoch ?? 0;
  const empty: AgentEntry = { agent, session: "", latest: null, maxEpoch: 0, counts: { checkpoints: 0, health: 0, invalid: 0, untrusted: 0 }, health: null, lastSignalAt: null, intervalsMs: [] };
  return {
    ...answer,
    mapped: map !== null,
    ...(map ? { map: map.name } : {}),
    next_seq: (answer.checkpoint?.seq ?? 0) + 1,
    // Above the fence, not only the resume point's epoch: a legacy checkpoint believed below it (accept),
    // or a rewind under a pause, leave the fence higher than the checkpoint resumed from.
    epoch: Math.max(answer.checkpoint?.epoch ?? 0, answer.directive?.epoch ?? 0, fence) + 1,
    liveness: liveness(entry ?? empty, policy.now, policy.liveness),
  };
}

/**
 * The same decision from the comments of the chain's open head (carried
 * copies included) and the trust policy: the entry point for a test harness
 * (docs/projection.md).
 */
export function decideResumeFromComments(comments: readonly CommentRecord[], trust: TrustPolicy, agent: string, session: string, policy: ResumeDecisionPolicy): ResumeDecision {
  const p = createProjection(trust);
  p.replaceAll(comments);
  return decideResume(agent, p.entry(agent, session), policy);
}
