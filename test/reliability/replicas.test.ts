// The replica chaos suite at a small count (the full run is `npm run reliability:replicas`).
import { describe, expect, it } from "vitest";
import { REPLICAS_MUST_BE_ZERO, runReplicaChaos } from "../../scripts/reliability/replicas/run-replicas.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();

describe.skipIf(!server.url)(`replica chaos${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  it("three replicas, the leader SIGKILLed twice: nothing lost or applied twice, replicas equal a rebuild, no overlapping writers", async () => {
    const run = await runReplicaChaos({ comments: 150, kills: 2, replicas: 3, seed: 7, leaseTtlMs: 1500, duplicateRate: 0.3, maxDelayMs: 30 });
    expect(run.problems).toEqual([]);
    for (const k of REPLICAS_MUST_BE_ZERO) expect(run.figures[k], k).toBe(0);
    expect(run.figures.kills).toBe(2);
    expect(run.figures.deliveries).toBeGreaterThanOrEqual(150);
    expect(run.figures.duplicates_sent).toBeGreaterThan(0);
    // Each kill handed the lease to another replica under a new token, and that one wrote.
    expect(run.figures.distinct_writer_tokens).toBeGreaterThanOrEqual(2);
    expect(run.figures.takeover_max_ms).toBeGreaterThan(0);
  });
});
