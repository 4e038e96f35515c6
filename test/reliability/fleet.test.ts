// The mixed-fleet differential suite at a small count (the full run is `npm run reliability:fleet`).
import { describe, expect, it } from "vitest";
import { runFleet } from "../../scripts/reliability/fleet/run-fleet.ts";
import { testPostgres } from "../helpers/test-postgres.ts";
import { describeWithPython3 } from "../helpers/seed-python.ts";

const server = testPostgres();

describeWithPython3("mixed fleet: every reader equals the model after every step", () => {
  describe.skipIf(!server.url)(`with bot replicas on PostgreSQL${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
    it("seed, CLI and library agents, controls, take-overs, rollovers, bot kills, in each bot mode: 0 disagreements", async () => {
      const run = await runFleet({ schedules: 4, steps: 5, seed: 18, cycleModes: true, createDatabase: () => server.freshDatabase() });
      const f = run.figures;
      expect(f.schedules).toBe(4);
      expect(f.modes).toEqual({ webhook_single: 1, polling_single: 1, webhook_replicas: 1, polling_replicas: 1 });
      expect(f.steps).toBe(20);
      // Six agents, five readers (the API once per live bot) after every step.
      expect(f.comparisons).toBeGreaterThanOrEqual(20 * 6 * 5);
      expect(f.seedComparisons).toBe(20 * 6);
      const found = run.examples
        .slice(0, 10)
        .map((d) => `schedule ${d.schedule} step ${d.step} (${d.action}) ${d.reader} ${d.agent} [${d.kinds.join(",")}] want ${JSON.stringify(d.want)} got ${JSON.stringify(d.got)}`);
      expect(found).toEqual([]);
      expect(f.disagreements).toBe(0);
      expect(f.takeOverTies).toBe(0);
      // About a minute on an idle 2-core machine; bot processes and python3 start per schedule.
    }, 600_000);
  });
});
