/** `npm run fuzz`: FUZZ_COUNT bodies (default 100,000) through the reader; exits 1 if a must-be-zero figure is not. */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { FUZZ_MUST_BE_ZERO, runFuzz } from "./fuzz/run-fuzz.ts";

const count = countFromEnv("FUZZ_COUNT", 100_000);
const seed = countFromEnv("FUZZ_SEED", 20_261_129);
const started = performance.now();
const { figures, kinds, examples } = runFuzz({ count, seed });
for (const e of examples) console.error(e);
console.log(
  `fuzz: seed=${seed} verdicts ${Object.entries(kinds)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log(formatFigures("fuzz", { ...figures }));
const failed = nonZero({ ...figures }, FUZZ_MUST_BE_ZERO);
if (failed.length) {
  console.error(`fuzz: FAILED (${failed.join(", ")} not 0)`);
  process.exitCode = 1;
}
