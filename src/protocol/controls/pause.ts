import type { ControlActionSpec } from "./control-action.ts";

/** `pause`: the agent stops before its next step and waits (a state; the box is ticked while it holds). */
export const pause = {
  action: "pause",
  summary: "Stop the agent before its next step until unpaused.",
  verbs: ["pause"],
  target: false,
  effect: "pause",
  box: { name: "Pause", label: "Pause (untick to resume)", untick: "unpause" },
  directive: "stop before the next step, and resume again later until the directive is null",
} as const satisfies ControlActionSpec;
