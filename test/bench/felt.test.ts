import { describe, expect, it } from "vitest";
import { runFeltSetting } from "../../bench/felt-run.ts";
import type { FeltResult, FeltSettings } from "../../bench/felt-run.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

// The felt-latency bench (npm run bench:felt) at tiny N: every figure is measured, every sample arrives,
// and the figures are named as the issue asks. Correctness only, never timings (the machine is shared).
const server = testPostgres();
const base = { pollMs: 500, dashboardMs: 1_000, leaseTtlMs: 3_000, feedMs: 1_000 } as const;

function names(r: FeltResult): string[] {
  return r.figures.map((f) => f.name);
}

function everySampleArrived(r: FeltResult, n: number): void {
  for (const f of r.figures) {
    expect(f.missed, f.name).toBe(0);
    expect(f.samples.length, f.name).toBe(f.name.startsWith("leader kill") ? 1 : n);
    expect(
      f.samples.every((s) => s >= 0 && Number.isFinite(s)),
      f.name,
    ).toBe(true);
    expect(f.p99, f.name).toBeGreaterThanOrEqual(f.p50);
  }
}

// Polling runs one sample (a pause; the closing unpause is waited for but not counted): when polling, an
// unpause read in the same batch as the bot's own re-read pause record is undone by a new [CONTROL] pause
// (restoreControls takes the command's change for an edit of that record; reported to the control desk's
// owner), which the bench counts as missed samples. Webhooks take one comment a delivery: two samples.
const SAMPLES = { webhooks: 2, polling: 1 } as const;
// Polling, the same bug can leave a box ticked that the run expects unticked: one run in several was seen
// to wait out its redraws and fail (SQLite, 6 Dec). Retried until the control desk's fix lands; then drop it.
const POLLING_RETRY = { retry: 2 } as const;

describe("felt latency bench (tiny N)", () => {
  it.for(["webhooks", "polling"] as const)("SQLite, %s: command → record and directive, save → API and dashboard", POLLING_RETRY, async (mode) => {
    const settings: FeltSettings = { mode, store: "sqlite", ...base };
    const r = await runFeltSetting(settings, { samples: SAMPLES[mode], killSamples: 0, waitMs: 20_000 });
    everySampleArrived(r, SAMPLES[mode]);
    expect(names(r)).toEqual([
      "save → /api/resume (leader)",
      "save → dashboard body (interval 1000 ms)",
      "slash command → [CONTROL] record on the issue",
      "slash command → directive (library resume)",
      "slash command → directive (CLI resume, in process)",
      "tick → [CONTROL] record on the issue",
      "tick → directive (library resume)",
      "tick → directive (CLI resume, in process)",
    ]);
  });

  it.skipIf(!server.url)("PostgreSQL replicas, polling: a follower's figures and a leader kill as well", { ...POLLING_RETRY, timeout: 600_000 }, async () => {
    const settings: FeltSettings = { mode: "polling", store: "postgres", ...base };
    const r = await runFeltSetting(settings, { samples: SAMPLES.polling, killSamples: 1, waitMs: 20_000 }, await server.freshDatabase());
    everySampleArrived(r, SAMPLES.polling);
    expect(names(r)).toContain("save → /api/resume (follower)");
    expect(names(r)).toContain("leader kill → a follower serves the next save (TTL 3000 ms)");
  });
});
