import type { ControlActionSpec } from "./control-action.ts";

/** `hide`: the dashboard row is hidden until the agent's next trusted signal. */
export const hide = {
  action: "hide",
  summary: "Hide the dashboard row until the agent signals again.",
  verbs: ["hide"],
  target: false,
  effect: "hide",
  box: { name: "Hide", label: "Hide this row" },
} as const satisfies ControlActionSpec;
