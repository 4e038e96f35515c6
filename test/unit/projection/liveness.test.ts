import { describe, expect, it } from "vitest";
import { detectTransitions, liveness } from "../../../src/projection/index.ts";

const T = Date.parse("2026-11-29T10:00:00Z");
const entry = (lastSignalAt: string | null, intervalsMs: number[] = []) => ({ lastSignalAt, intervalsMs });
const ago = (ms: number) => new Date(T - ms).toISOString();
const MIN = 60_000;

describe("liveness", () => {
  it("floors the cadence threshold at minStaleMs (default 5 min) and goes silent at 3×", () => {
    const e = entry(ago(4 * MIN), [MIN, MIN]);
    expect(liveness(e, new Date(T))).toEqual({ state: "active", thresholdMs: 5 * MIN, silentMs: 15 * MIN, ageMs: 4 * MIN });
    expect(liveness(entry(ago(5 * MIN), [MIN]), new Date(T)).state).toBe("stale");
    expect(liveness(entry(ago(15 * MIN), [MIN]), new Date(T)).state).toBe("silent");
  });

  it("derives the threshold from the median interval × cadenceFactor", () => {
    const e = entry(ago(50 * MIN), [10 * MIN, 20 * MIN, 20 * MIN, 100 * MIN]); // median 20 min
    const l = liveness(e, new Date(T));
    expect(l.thresholdMs).toBe(60 * MIN);
    expect(l.state).toBe("active");
    expect(liveness(e, new Date(T), { cadenceFactor: 2 }).state).toBe("stale");
    expect(liveness(entry(ago(0), [1, 3, 1000]), new Date(T), { minStaleMs: 1, cadenceFactor: 1 }).thresholdMs).toBe(3);
  });

  it("honours fixed thresholds", () => {
    const e = entry(ago(2 * MIN), [10 * MIN]);
    expect(liveness(e, new Date(T), { staleAfterMs: MIN }).state).toBe("stale");
    expect(liveness(e, new Date(T), { staleAfterMs: MIN, silentAfterMs: 90_000 }).state).toBe("silent");
  });

  it("is silent with no signal and never reports a negative age", () => {
    expect(liveness(entry(null), new Date(T))).toMatchObject({ state: "silent", ageMs: null });
    expect(liveness(entry(new Date(T + MIN).toISOString()), new Date(T))).toMatchObject({ state: "active", ageMs: 0 });
  });
});

describe("detectTransitions", () => {
  it("lists only keys whose state changed, appeared or disappeared, sorted", () => {
    expect(detectTransitions({ b: "active", a: "active", c: "stale" }, { a: "active", b: "stale", d: "active" })).toEqual([
      { key: "b", from: "active", to: "stale" },
      { key: "c", from: "stale", to: null },
      { key: "d", from: null, to: "active" },
    ]);
    expect(detectTransitions({ a: "silent" }, { a: "silent" })).toEqual([]);
  });

  it("is not fooled by inherited properties", () => {
    expect(detectTransitions({}, { toString: "active" as const })).toEqual([{ key: "toString", from: null, to: "active" }]);
  });
});
