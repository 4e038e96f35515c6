import { describe, expect, it } from "vitest";
import { SNAPSHOT_MUST_BE_ZERO, runSnapshotTrials } from "../../scripts/reliability/snapshots/run-snapshots.ts";

describe("snapshot SIGKILL trials (reduced count; `npm run reliability:snapshots` runs 100 of each)", () => {
  it("a killed save leaves the previous or the new snapshot whole and restorable; a killed restore leaves the old or the new file whole", async () => {
    const run = await runSnapshotTrials({ trials: 4, seed: 3, initialBytes: 512 * 1024 });
    expect(run.problems).toEqual([]);
    expect(run.figures.save_trials).toBe(4);
    expect(run.figures.restore_trials).toBe(4);
    expect(run.figures.save_previous_restored + run.figures.save_new_restored).toBe(4);
    expect(run.figures.restore_old_whole + run.figures.restore_new_whole).toBe(4);
    for (const k of SNAPSHOT_MUST_BE_ZERO) expect({ [k]: run.figures[k] }).toEqual({ [k]: 0 });
  }); // time-out from vitest.slow.config.ts (a slow suite; the machine may be shared)
});
