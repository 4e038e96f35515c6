import type { AgentEntry } from "./projection-snapshot.ts";
import { MAX_INTERVALS } from "./projection-snapshot.ts";

export type LivenessState = "active" | "stale" | "silent";

export interface LivenessOptions {
  /** Fixed stale threshold; otherwise derived from the agent's own cadence. */
  staleAfterMs?: number;
  /** Fixed silent threshold; otherwise 3 × the stale threshold. */
  silentAfterMs?: number;
  /** Floor of the derived stale threshold. Default 5 minutes. */
  minStaleMs: number;
  /** Stale after this many median intervals. Default 3. */
  cadenceFactor: number;
}

export const DEFAULT_LIVENESS_OPTIONS: LivenessOptions = { minStaleMs: 5 * 60_000, cadenceFactor: 3 };

export interface Liveness {
  state: LivenessState;
  /** The stale threshold used. */
  thresholdMs: number;
  /** The silent threshold used. */
  silentMs: number;
  /** Time since the last trusted signal (never negative), or null if there was none. */
  ageMs: number | null;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Is the agent still talking? Pure: `now` is passed in. Stale threshold =
 * `staleAfterMs`, else max(minStaleMs, median(recent intervals) × cadenceFactor);
 * silent at `silentAfterMs`, else 3 × the stale threshold. No signal at all is silent.
 *
 * @example liveness(entry, new Date(), { minStaleMs: 300_000, cadenceFactor: 3 })
 */
export function liveness(entry: Pick<AgentEntry, "lastSignalAt" | "intervalsMs">, now: Date, opts: Partial<LivenessOptions> = {}): Liveness {
  const o = { ...DEFAULT_LIVENESS_OPTIONS, ...opts };
  const med = median(entry.intervalsMs);
  const thresholdMs = o.staleAfterMs ?? Math.max(o.minStaleMs, med === null ? 0 : med * o.cadenceFactor);
  const silentMs = Math.max(thresholdMs, o.silentAfterMs ?? thresholdMs * 3);
  const last = entry.lastSignalAt === null ? Number.NaN : Date.parse(entry.lastSignalAt);
  if (Number.isNaN(last)) return { state: "silent", thresholdMs, silentMs, ageMs: null };
  const ageMs = Math.max(0, now.getTime() - last);
  const state: LivenessState = ageMs >= silentMs ? "silent" : ageMs >= thresholdMs ? "stale" : "active";
  return { state, thresholdMs, silentMs, ageMs };
}

/**
 * The liveness inputs of a history cut in two at a comment id: `before` as the resume index carries
 * them (the last signal's time and up to MAX_INTERVALS gaps), `after` the times of the trusted signals
 * above the cut, in comment-id order. Equal to what a fold of the whole history derives (derive-entry.ts,
 * finishFold): the gaps are appended in order, each clamped at 0, and the last MAX_INTERVALS kept. Pure.
 */
export function joinSignals(before: Pick<AgentEntry, "lastSignalAt" | "intervalsMs">, after: readonly number[]): Pick<AgentEntry, "lastSignalAt" | "intervalsMs"> {
  if (after.length === 0) return { lastSignalAt: before.lastSignalAt, intervalsMs: before.intervalsMs.slice(-MAX_INTERVALS) };
  const gaps = [...before.intervalsMs];
  const parsed = before.lastSignalAt === null ? Number.NaN : Date.parse(before.lastSignalAt);
  let prev: number | null = Number.isNaN(parsed) ? null : parsed;
  for (const t of after) {
    if (prev !== null) gaps.push(Math.max(0, t - prev));
    prev = t;
  }
  return { lastSignalAt: new Date(prev as number).toISOString(), intervalsMs: gaps.slice(-MAX_INTERVALS) };
}
