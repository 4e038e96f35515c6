import { describe, expect, it } from "vitest";
import { CRASH_MUST_BE_ZERO, runCrash } from "../../scripts/reliability/crash/run-crash.ts";

describe("crash suite (reduced count; `npm run reliability:crash` runs 100 trials)", () => {
  it("SIGKILLed workers resume from the newest durable checkpoint, never from a zombie's", async () => {
    const run = await runCrash({ trials: 3, seed: 5, concurrency: 2, zombieEvery: 2 });
    expect(run.problems).toEqual([]);
    expect(run.figures.trials).toBe(3);
    expect(run.figures.correct_resumes).toBe(3);
    expect(run.figures.zombie_trials).toBe(1);
    expect(run.figures.kills).toBeGreaterThanOrEqual(3);
    for (const k of CRASH_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
  }); // time-out from vitest.slow.config.ts (a slow suite; the machine may be shared)
});
