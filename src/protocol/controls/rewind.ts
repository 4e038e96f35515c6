import type { ControlActionSpec } from "./control-action.ts";

/** `rewind`: back to an earlier trusted checkpoint, under a new epoch that fences off the current worker. */
export const rewind = {
  action: "rewind",
  summary: "Go back to an earlier trusted checkpoint (a comment id or checkpoint Id); newer saves of the old worker are fenced off.",
  verbs: ["rewind"],
  target: true,
  effect: "fence",
  box: { name: "Rewind", label: "Rewind to" },
  directive: "resume again and continue from the checkpoint it returns",
} as const satisfies ControlActionSpec;
