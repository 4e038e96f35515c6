import type { ControlActionSpec } from "./control-action.ts";

/** `unpause` (`/checkpost resume`): lifts a pause. On the dashboard it is unticking Pause. */
export const unpause = {
  action: "unpause",
  summary: "Lift a pause: the agent resumes where it was.",
  verbs: ["resume", "unpause"],
  target: false,
  effect: "unpause",
  box: null,
} as const satisfies ControlActionSpec;
