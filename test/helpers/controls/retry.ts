import type { ControlActionSpec } from "../../../src/protocol/index.ts";

/**
 * A toy control action, defined by a test alone (issue 31, item 4): `retry` asks the agent to start its
 * current step again from the checkpoint `resume` returns, under a new epoch that fences off the worker
 * running now. With its one registry line (test/e2e/toy-control-action.test.ts) it is read, written,
 * commanded, ticked, recorded by the desk and reported by the API with no other change.
 */
export const retry = {
  action: "retry",
  summary: "Start the current step again from the current checkpoint; the running worker is fenced off.",
  verbs: ["retry"],
  target: false,
  effect: "fence",
  box: { name: "Retry", label: "Retry the current step" },
  directive: "resume again and redo the current step from the checkpoint it returns",
} as const satisfies ControlActionSpec;
