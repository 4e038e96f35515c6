/** The seed's implementation-worker phases, in order (its PHASE_RESUME_MAP's keys). */
export const STEPS = ["clone_complete", "subtask_1_complete", "subtask_2_complete", "all_subtasks_complete", "commit_complete", "pr_created"] as const;
export const WORKER_AGENT = "implementation-worker";

/** One line of the worker's stdout. */
export type WorkerEvent =
  | { e: "resumed"; incarnation: number; phase: string; resume_point: string; commentId: number | null; epoch: number }
  | { e: "saving"; step: string }
  | { e: "saved"; step: string; commentId: number; epoch: number }
  | { e: "done" };
