import { describe, expect, it } from "vitest";
import { FUZZ_MUST_BE_ZERO, runFuzz } from "../../scripts/reliability/fuzz/run-fuzz.ts";

describe("reader fuzz suite (reduced count; `npm run fuzz` runs 100,000)", () => {
  it("never throws, misattributes, loses a round trip, pollutes a prototype or exceeds its bounds", () => {
    const { figures, examples } = runFuzz({ count: 4000, seed: 7 });
    expect(figures.inputs).toBe(4000);
    for (const k of FUZZ_MUST_BE_ZERO) expect({ [k]: figures[k], examples }).toEqual({ [k]: 0, examples: [] });
  });
});
