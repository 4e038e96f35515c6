import { describe, expect, it } from "vitest";
import { FAULTS_MUST_BE_ZERO, runFaults } from "../../scripts/reliability/faults/run-faults.ts";

describe("fault suite (reduced count; `npm run reliability:faults` runs 1,000 saves)", () => {
  it("N saves under ≥ 20 % injected faults leave exactly N checkpoint comments", async () => {
    const run = await runFaults({ saves: 150, concurrency: 6, seed: 11 });
    expect(run.figures.saves).toBe(150);
    expect(run.figures.comments_found).toBe(150);
    for (const k of FAULTS_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
    expect(run.figures.injected_faults / run.requests).toBeGreaterThanOrEqual(0.15);
    expect(run.faultKinds["commitThenDrop"]).toBeGreaterThan(0);
  });
});
