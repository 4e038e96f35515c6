import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { advanceWatermark } from "../../../src/bot-state/advance-watermark.ts";
import { advanceWatermarkAll } from "../../../src/bot-state/advance-watermark-all.ts";
import type { Watermark } from "../../../src/bot-state/projection-store.ts";

const T = Date.parse("2026-11-29T10:00:00Z");
const version = fc.record({ id: fc.integer({ min: 1, max: 50 }), updatedAt: fc.integer({ min: 0, max: 4000 }).map((ms) => new Date(T + ms).toISOString()) });

describe("advanceWatermarkAll", () => {
  it("equals advanceWatermark folded one version at a time (and returns the same object when nothing changes)", () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.record({ updatedAtSecond: fc.constant(Math.floor(T / 1000) + 1), idsInSecond: fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 5 }).map((a) => a.sort((x, y) => x - y)) }),
        ),
        fc.array(version, { maxLength: 40 }),
        (w0: Watermark | null, vs) => {
          let w = w0;
          for (const v of vs) w = advanceWatermark(w, v.id, v.updatedAt);
          const all = advanceWatermarkAll(w0, vs);
          expect(all).toEqual(w);
          if (w === w0) expect(all).toBe(w0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("is not quadratic: 50,000 versions in one second", () => {
    const vs = Array.from({ length: 50_000 }, (_, i) => ({ id: i + 1, updatedAt: new Date(T).toISOString() }));
    expect(advanceWatermarkAll(null, vs)?.idsInSecond).toHaveLength(50_000);
  });
});
