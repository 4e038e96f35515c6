/**
 * `npm run reliability:trust`: the trust-boundary suite (docs/security.md). Issue 19's round first:
 * replayed deliveries (TRUST_REPLAYS, default 3), a commenter's successor issue at rollover, forged
 * health archives (TRUST_FORGED_ARCHIVES, default 5), and wrong web sign-ins (TRUST_STORM_CONCURRENCY,
 * default 20, for TRUST_STORM_SECONDS, default 5) with and without the rate limit while the bot's
 * /healthz is timed in the same process (p95 must stay under 250 ms). Then issue 9's: a flood of rejected
 * webhook deliveries (TRUST_FLOOD deliveries of TRUST_FLOOD_KIB KiB, default 300 × 1,024), a bot
 * start-up over TRUST_NAMES untrusted agent names (default 20,000, and a tenth of that to show the
 * growth), and one TRUST_HUGE_MIB MiB comment by an untrusted author (default 30). Before all of them,
 * issue 28's control property: TRUST_CONTROL_RUNS random schedules (default 300) of up to
 * TRUST_CONTROL_STEPS steps (default 24; TRUST_ONLY=controls runs only it). Exits 1 when a figure that
 * must be 0 is not.
 */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { ARCHIVE_MUST_BE_ZERO, HIJACK_MUST_BE_ZERO, REPLAY_MUST_BE_ZERO, runArchives, runHijack, runReplay, runSignInStorm } from "./trust/run-trust-19.ts";
import { CONTROL_PROPERTY_MUST_BE_ZERO, KNOWN_SCHEDULES, runControlProperty } from "./trust/run-control-property.ts";
import { FLOOD_MUST_BE_ZERO, HUGE_MUST_BE_ZERO, NAMES_MUST_BE_ZERO, runFlood, runHugeComment, runNames } from "./trust/run-trust.ts";

const failed: string[] = [];

// Issue 28.1 first: it is the one a regression in the control desk breaks. TRUST_ONLY=controls runs it alone.
const controlRuns = countFromEnv("TRUST_CONTROL_RUNS", 300);
const controlStarted = performance.now();
const property = await runControlProperty({ runs: controlRuns, steps: countFromEnv("TRUST_CONTROL_STEPS", 24), seed: countFromEnv("TRUST_CONTROL_SEED", 2028), examples: KNOWN_SCHEDULES });
if (property.counterexample) console.error(`trust-controls: counterexample ${property.counterexample}`);
console.log(`${formatFigures("trust-controls", { ...property.figures })} in ${((performance.now() - controlStarted) / 1000).toFixed(1)} s`);
failed.push(...nonZero({ ...property.figures }, CONTROL_PROPERTY_MUST_BE_ZERO));
if (process.env.TRUST_ONLY === "controls") {
  if (failed.length) console.error(`trust: FAILED (${failed.join(", ")})`);
  process.exit(failed.length ? 1 : 0);
}

const replay = await runReplay({ replays: countFromEnv("TRUST_REPLAYS", 3) });
console.log(formatFigures("trust-replay", { ...replay.figures }));
failed.push(...nonZero({ ...replay.figures }, REPLAY_MUST_BE_ZERO));

const hijack = await runHijack({ rolloverAt: 12 });
console.log(formatFigures("trust-hijack", { ...hijack.figures }));
failed.push(...nonZero({ ...hijack.figures }, HIJACK_MUST_BE_ZERO));

const archives = await runArchives({ forged: countFromEnv("TRUST_FORGED_ARCHIVES", 5) });
console.log(formatFigures("trust-archives", { ...archives.figures }));
failed.push(...nonZero({ ...archives.figures }, ARCHIVE_MUST_BE_ZERO));

for (const limited of [true, false]) {
  const storm = await runSignInStorm({ concurrency: countFromEnv("TRUST_STORM_CONCURRENCY", 20), seconds: countFromEnv("TRUST_STORM_SECONDS", 5), limited });
  console.log(formatFigures("trust-sign-in-storm", { ...storm.figures }));
  if (storm.figures.healthz_p95_ms >= 250) failed.push(`healthz_p95_ms=${storm.figures.healthz_p95_ms} (rate_limit=${storm.figures.rate_limit})`);
}
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
