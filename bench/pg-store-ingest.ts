/**
 * The PostgreSQL store alone, without a bot: `concurrency` writers each storing webhook deliveries of
 * new comments (applyDelivery, as the bot's ingest calls it) for `--ms`, on a fresh embedded server
 * (fsync off as in the tests; `--durable`: fsync and synchronous_commit on). What the store can take,
 * apart from the bot's own work (parse, fold, answer) and from the bench driver's.
 *
 *   node --import tsx bench/pg-store-ingest.ts [--ms 5000] [--concurrency 8] [--durable] [--store DIR]
 *
 * `--store DIR`: the checkout whose store to load (an A/B against another commit's worktree).
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PostgresProjectionStore } from "../src/bot-state/postgres/postgres-projection-store.ts";
import { startPostgres } from "../test/helpers/start-postgres.ts";
import { percentile } from "./http.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const ms = Number(arg("--ms") ?? 5000);
const concurrency = Number(arg("--concurrency") ?? 8);
const root = resolve(arg("--store") ?? join(import.meta.dirname, ".."));
const mod = (await import(pathToFileURL(join(root, "src/bot-state/postgres/postgres-projection-store.ts")).href)) as { PostgresProjectionStore: typeof PostgresProjectionStore };

const pg = await startPostgres({ flags: argv.includes("--durable") ? ["fsync=on", "synchronous_commit=on", "full_page_writes=on"] : [] });
try {
  const store = await mod.PostgresProjectionStore.open({ url: await pg.createDatabase("store_ingest") });
  const issue = "bench/store#1";
  const body = `[CHECKPOINT] ${"x".repeat(600)}`;
  let next = 1;
  const lat: number[] = [];
  const t0 = performance.now();
  const worker = async () => {
    while (performance.now() - t0 < ms) {
      const id = next++;
      const at = new Date(Date.UTC(2026, 11, 6, 12, 0, Math.floor(id / 50))).toISOString().replace(".000Z", "Z");
      const s = performance.now();
      await store.applyDelivery(issue, `dlv-${id}`, [{ type: "upsert", comment: { id, author: "agent", body, createdAt: at, updatedAt: at } }]);
      lat.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const secs = (performance.now() - t0) / 1000;
  process.stdout.write(
    `store alone: ${lat.length} deliveries in ${secs.toFixed(1)} s: ${(lat.length / secs).toFixed(0)}/s, p50 ${percentile(lat, 50).toFixed(2)} ms, p99 ${percentile(lat, 99).toFixed(2)} ms (concurrency ${concurrency}${argv.includes("--durable") ? ", durable" : ""})\n`,
  );
  await store.close();
} finally {
  await pg.stop();
}
