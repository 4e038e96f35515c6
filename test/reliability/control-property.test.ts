import { describe, expect, it } from "vitest";
import { CONTROL_PROPERTY_MUST_BE_ZERO, KNOWN_SCHEDULES, runControlProperty } from "../../scripts/reliability/trust/run-control-property.ts";

// Reduced count; `npm run reliability:trust` runs TRUST_CONTROL_RUNS (default 200) schedules.
describe("control property (issue 28.1): no state changes without a new command from a person", () => {
  it("random polls, re-lists, deliveries, redeliveries, restarts, touches of records and commands", async () => {
    const { figures, counterexample } = await runControlProperty({ runs: 16, steps: 14, seed: 2811, examples: KNOWN_SCHEDULES });
    expect(figures.runs).toBe(16);
    expect(figures.commands).toBeGreaterThan(0);
    for (const k of CONTROL_PROPERTY_MUST_BE_ZERO) expect({ [k]: figures[k], counterexample }).toEqual({ [k]: 0, counterexample: null });
  }, 120_000);
});
