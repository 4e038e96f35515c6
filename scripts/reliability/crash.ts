/** `npm run reliability:crash`: CRASH_TRIALS trials (default 100) of SIGKILLed, restarted workers. */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { CRASH_MUST_BE_ZERO, runCrash } from "./crash/run-crash.ts";

const trials = countFromEnv("CRASH_TRIALS", 100);
const seed = countFromEnv("CRASH_SEED", 1);
const concurrency = countFromEnv("CRASH_CONCURRENCY", 2);
const run = await runCrash({ trials, seed, concurrency });
for (const p of run.problems.slice(0, 20)) console.error(p);
console.log(
  `crash: seed=${seed} concurrency=${concurrency} kills=${run.figures.kills} restarts=${run.figures.restarts} zombie_trials=${run.figures.zombie_trials} in ${(run.elapsedMs / 1000).toFixed(1)} s`,
);
const { trials: n, correct_resumes, redone_steps_beyond_last_checkpoint, duplicate_checkpoints, zombie_resumes, excess_redone, incomplete } = run.figures;
console.log(formatFigures("crash", { trials: n, correct_resumes, redone_steps_beyond_last_checkpoint, duplicate_checkpoints, zombie_resumes, excess_redone, incomplete }));
const failed = nonZero({ ...run.figures }, CRASH_MUST_BE_ZERO);
if (failed.length || correct_resumes !== n) {
  console.error(`crash: FAILED (${[...failed, ...(correct_resumes !== n ? ["correct_resumes != trials"] : [])].join(", ")})`);
  process.exitCode = 1;
}
