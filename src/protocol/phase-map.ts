import * as z from "zod";
import { lazySchema } from "./lazy-schema.ts";

/** Phase → resume point. */
export const PhaseMapSchema = lazySchema(() => z.record(z.string().min(1), z.string().min(1)));
export type PhaseMap = z.infer<typeof PhaseMapSchema>;

/** The seed's PHASE_RESUME_MAP for implementation-worker, verbatim. */
export const IMPLEMENTATION_WORKER_PHASE_MAP: Readonly<PhaseMap> = Object.freeze({
  clone_complete: "phase_2_subtasks",
  subtask_1_complete: "phase_2_continue",
  subtask_2_complete: "phase_2_continue",
  all_subtasks_complete: "phase_3_commit",
  commit_complete: "phase_4_pr",
  pr_created: "phase_4_monitoring",
});

/** Built-in maps by name (`--map implementation-worker`). */
export const BUILTIN_PHASE_MAPS: Readonly<Record<string, Readonly<PhaseMap>>> = Object.freeze({
  "implementation-worker": IMPLEMENTATION_WORKER_PHASE_MAP,
});

export const START = "start";
export const FRESH_START = "fresh_start";

/** The seed's rule: a phase the map does not know resumes at "start". */
export function resumePointFor(phase: string, map: Readonly<PhaseMap>): string {
  return Object.hasOwn(map, phase) ? (map[phase] as string) : START;
}
