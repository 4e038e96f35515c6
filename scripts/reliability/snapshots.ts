/** `npm run reliability:snapshots`: SNAPSHOT_TRIALS (default 100) SIGKILLed saves and as many SIGKILLed restores. */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { SNAPSHOT_MUST_BE_ZERO, runSnapshotTrials } from "./snapshots/run-snapshots.ts";

const trials = countFromEnv("SNAPSHOT_TRIALS", 100);
const seed = countFromEnv("SNAPSHOT_SEED", 1);
const run = await runSnapshotTrials({ trials, seed, log: (l) => console.error(`snapshots: ${l}`) });
for (const p of run.problems.slice(0, 20)) console.error(p);
console.log(`snapshots: seed=${seed} in ${(run.elapsedMs / 1000).toFixed(1)} s`);
console.log(formatFigures("snapshots", { ...run.figures }));
const failed = nonZero({ ...run.figures }, SNAPSHOT_MUST_BE_ZERO);
if (failed.length) {
  console.error(`snapshots: FAILED (${failed.join(", ")})`);
  process.exitCode = 1;
}
