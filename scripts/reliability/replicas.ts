/** `npm run reliability:replicas`: bot replicas on one PostgreSQL, the leader SIGKILLed again and again (docs/reliability.md). */
import { countFromEnv, formatFigures, nonZero } from "./figures.ts";
import { REPLICAS_MUST_BE_ZERO, runReplicaChaos } from "./replicas/run-replicas.ts";

const comments = countFromEnv("REPLICAS_DELIVERIES", 5000);
const kills = countFromEnv("REPLICAS_KILLS", 12);
const seed = countFromEnv("REPLICAS_SEED", 1);
const leaseTtlMs = countFromEnv("REPLICAS_LEASE_TTL_MS", 2000);
const run = await runReplicaChaos({ comments, kills, replicas: 3, seed, leaseTtlMs, duplicateRate: 0.2, maxDelayMs: 40, log: (l) => console.error(l) });
for (const p of run.problems.slice(0, 20)) console.error(p);
console.log(`replicas: seed=${seed} replicas=3 lease_ttl_ms=${leaseTtlMs} in ${(run.elapsedMs / 1000).toFixed(1)} s`);
console.log(formatFigures("replicas", { ...run.figures }));
const failed = nonZero({ ...run.figures }, REPLICAS_MUST_BE_ZERO);
if (failed.length || run.figures.kills < kills) {
  console.error(`replicas: FAILED (${[...failed, ...(run.figures.kills < kills ? ["fewer kills than asked"] : [])].join(", ")})`);
  process.exitCode = 1;
}
