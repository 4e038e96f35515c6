import type { ControlActionSpec } from "./control-action.ts";

/** `release`: the session is free for another worker to take over (a fence at its current checkpoint). */
export const release = {
  action: "release",
  summary: "Free the session for another worker to take over; the current worker's next save is fenced off.",
  verbs: ["release"],
  target: false,
  effect: "fence",
  box: { name: "Release", label: "Release for take-over" },
  directive: "stop: another worker takes over",
} as const satisfies ControlActionSpec;
