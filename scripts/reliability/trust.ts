/**
 * `npm run reliability:trust`: the trust-boundary suite (docs/security.md). A flood of rejected
 * webhook deliveries (TRUST_FLOOD deliveries of TRUST_FLOOD_KIB KiB, default 300 × 1,024), a bot
 * start-up over TRUST_NAMES untrusted agent names (default 20,000, and a tenth of that to show the
 * growth), and one TRUST_HUGE_MIB MiB comment by an untrusted author (default 30). Exits 1 when a
 * figure that must be 0 is not.
 */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { FLOOD_MUST_BE_ZERO, HUGE_MUST_BE_ZERO, NAMES_MUST_BE_ZERO, runFlood, runHugeComment, runNames } from "./trust/run-trust.ts";

const failed: string[] = [];
const flood = await runFlood({ deliveries: countFromEnv("TRUST_FLOOD", 300), payloadBytes: countFromEnv("TRUST_FLOOD_KIB", 1024) * 1024, concurrency: countFromEnv("TRUST_FLOOD_CONCURRENCY", 4) });
console.log(`${formatFigures("trust-flood", { ...flood.figures })} in ${(flood.elapsedMs / 1000).toFixed(1)} s`);
failed.push(...nonZero({ ...flood.figures }, FLOOD_MUST_BE_ZERO));

const names = countFromEnv("TRUST_NAMES", 20_000);
for (const n of [Math.max(1, Math.round(names / 10)), names]) {
  const run = await runNames({ names: n, authors: 200 });
  console.log(formatFigures("trust-names", { ...run.figures }));
  failed.push(...nonZero({ ...run.figures }, NAMES_MUST_BE_ZERO));
}

const huge = await runHugeComment({ mib: countFromEnv("TRUST_HUGE_MIB", 30) });
console.log(formatFigures("trust-huge-comment", { ...huge.figures }));
failed.push(...nonZero({ ...huge.figures }, HUGE_MUST_BE_ZERO));

if (failed.length) {
  console.error(`trust: FAILED (${failed.join(", ")})`);
  process.exitCode = 1;
}
