import type { JsonValue } from "./json-value.ts";
import { FRESH_START, START, resumePointFor } from "./phase-map.ts";
import type { PhaseMap } from "./phase-map.ts";
import type { Checkpoint } from "./schemas.ts";

export interface ResumePoint {
  resume_point: string;
  phase: string;
  /** The checkpoint's data as saved (`{}` when starting fresh). */
  state: JsonValue;
}

/** Turn the checkpoint a worker should trust (or none) into where it resumes. */
export function toResumePoint(cp: Pick<Checkpoint, "phase" | "data"> | null, map: Readonly<PhaseMap>): ResumePoint {
  if (!cp) return { resume_point: START, phase: FRESH_START, state: {} };
  return { resume_point: resumePointFor(cp.phase, map), phase: cp.phase, state: cp.data };
}
