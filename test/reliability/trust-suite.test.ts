import { describe, expect, it } from "vitest";
import { ARCHIVE_MUST_BE_ZERO, runArchives } from "../../scripts/reliability/trust/run-trust-19.ts";
import { FLOOD_MUST_BE_ZERO, HUGE_MUST_BE_ZERO, NAMES_MUST_BE_ZERO, runFlood, runHugeComment, runNames } from "../../scripts/reliability/trust/run-trust.ts";

// Reduced counts; `npm run reliability:trust` runs 300 × 1 MiB deliveries, 20,000 names and a 30 MiB comment.
describe("trust suite (reduced counts)", () => {
  it("a flood of rejected deliveries: one bounded line each, no payload logged, a real delivery still applied", async () => {
    const run = await runFlood({ deliveries: 12, payloadBytes: 256 * 1024, concurrency: 3 });
    for (const k of FLOOD_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
    expect(run.figures.rejected).toBe(12);
    expect(run.figures.log_lines).toBe(12);
    expect(run.figures.log_bytes_per_delivery).toBeLessThan(512);
  });

  it("untrusted names make no entry, liveness state or alert; anomaly lines stay bounded", async () => {
    const run = await runNames({ names: 1500, authors: 150 });
    for (const k of NAMES_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
    expect(run.figures.entries).toBe(1);
    expect(run.figures.anomaly_lines).toBe(101);
  });

  it("a huge untrusted comment breaks no read", async () => {
    const run = await runHugeComment({ mib: 9 });
    for (const k of HUGE_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
    expect(run.figures.bot_startup_ms).toBeGreaterThan(0);
  });

  it("forged health archives are listed as untrusted, never believed; a corrupt one does not fail the command", async () => {
    const run = await runArchives({ forged: 2 });
    for (const k of ARCHIVE_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
    expect(run.figures.real_lines).toBeGreaterThan(0);
    expect(run.figures.untrusted_listed).toBe(run.figures.forged_assets);
    expect(run.figures.corrupt_reported).toBe(1);
  });
});
