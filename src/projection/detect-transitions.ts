import { compareCodePoints } from "../protocol/index.ts";
import type { LivenessState } from "./liveness.ts";

export interface LivenessTransition {
  /** An `entryKey(agent, session)`. */
  key: string;
  /** null: the key is new. */
  from: LivenessState | null;
  /** null: the key is gone. */
  to: LivenessState | null;
}

/**
 * The keys whose liveness changed between two evaluations, sorted by key, so
 * the bot logs or alerts once per transition rather than on every tick.
 *
 * @example detectTransitions({ a: "active" }, { a: "stale" }) // [{ key: "a", from: "active", to: "stale" }]
 */
export function detectTransitions(prev: Readonly<Record<string, LivenessState>>, next: Readonly<Record<string, LivenessState>>): LivenessTransition[] {
  const out: LivenessTransition[] = [];
  for (const key of new Set([...Object.keys(prev), ...Object.keys(next)])) {
    const from = Object.hasOwn(prev, key) ? (prev[key] as LivenessState) : null;
    const to = Object.hasOwn(next, key) ? (next[key] as LivenessState) : null;
    if (from !== to) out.push({ key, from, to });
  }
  return out.sort((a, b) => compareCodePoints(a.key, b.key));
}
