/** `npm run reliability:faults`: FAULT_SAVES saves (default 1,000) under injected faults; exits 1 on duplicates or lost saves. */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { FAULTS_MUST_BE_ZERO, runFaults } from "./faults/run-faults.ts";

const saves = countFromEnv("FAULT_SAVES", 1000);
const seed = countFromEnv("FAULT_SEED", 1);
const concurrency = countFromEnv("FAULT_CONCURRENCY", 8);
const run = await runFaults({ saves, seed, concurrency });
const rate = run.requests ? (100 * run.figures.injected_faults) / run.requests : 0;
console.log(
  `faults: seed=${seed} concurrency=${concurrency} requests=${run.requests} fault_rate=${rate.toFixed(1)}% ` +
    `${Object.entries(run.faultKinds)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")} in ${(run.elapsedMs / 1000).toFixed(1)} s`,
);
console.log(formatFigures("faults", { ...run.figures }));
const failed = nonZero({ ...run.figures }, FAULTS_MUST_BE_ZERO);
if (failed.length || run.figures.comments_found !== run.figures.saves) {
  console.error(`faults: FAILED (${failed.join(", ") || "comments_found != saves"})`);
  process.exitCode = 1;
}
