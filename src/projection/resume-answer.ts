import { START, toResumePoint } from "../protocol/index.ts";
import type { JsonValue, PhaseMap } from "../protocol/index.ts";
import { directiveOf } from "./directive-of.ts";
import type { AgentEntry, ResumeAnswer } from "./projection-snapshot.ts";

/**
 * The resume answer of an agent+session from its entry (as any projection
 * derives it from the chain's comments): where to continue, with what state,
 * the directive people gave, the newer checkpoints not used and why, and the
 * epoch and seq to take over with. Pure.
 */
export function resumeAnswerOf(entry: AgentEntry | null, map: Readonly<PhaseMap> | null): ResumeAnswer {
  const cp = entry?.latest ?? null;
  const r = toResumePoint(cp, map ?? {});
  return {
    // No map: the agent's own phase (a fresh start still answers "start").
    resume_point: cp && !map ? cp.phase : cp ? r.resume_point : START,
    phase: r.phase,
    state: r.state as JsonValue,
    checkpoint: cp
      ? { commentId: cp.commentId, ...(cp.id !== undefined ? { id: cp.id } : {}), ...(cp.seq !== undefined ? { seq: cp.seq } : {}), ...(cp.epoch !== undefined ? { epoch: cp.epoch } : {}) }
      : null,
    directive: directiveOf(entry),
    not_used: entry?.notUsed ?? [],
  };
}
