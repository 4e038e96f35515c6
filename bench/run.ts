/**
 * `npm run bench` (full) / `npm run bench -- --quick` (CI, < 1 min).
 * Options: --quick, --only-stores (SQLite vs PostgreSQL only; with it --stores sqlite|postgres, --pg-durable: fsync and synchronous_commit on, --pg-stats: what PostgreSQL ran per delivery), --no-postgres, --no-retention (skip bounded history), --out FILE, --latency MS (default 20), --bandwidth BYTES/S (default 10 MB/s), --sizes 1000,5000
 * See docs/benchmarks.md.
 */
import { formatStoreCompare, runStoreCompare } from "./store-compare.ts";
import type { StoreRun } from "./store-compare.ts";
import { cpus } from "node:os";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runScenario } from "./scenario.ts";
import type { ScenarioOptions, ScenarioResult } from "./scenario.ts";
import { generateDataset } from "./data.ts";
import { parseThroughput } from "./parse-bench.ts";
import type { ParseResult } from "./parse-bench.ts";
import { buildReport, formatReport } from "./report.ts";
import { simulateDashboardWrites } from "./dashboard-writes.ts";
import type { DashboardWritesResult } from "./dashboard-writes.ts";
import { formatRetention, runRetention } from "./retention.ts";
import { measureBodySize } from "./body-size.ts";
import type { BodySizeResult } from "./body-size.ts";
import type { RetentionRun } from "./retention.ts";

export interface BenchConfig {
  quick: boolean;
  sizes: number[];
  latencyMs: number;
  bandwidthBytesPerSec: number;
  saveReps: number;
  heavyReps: (n: number) => number;
  lightReps: number;
  warmRequests: number;
  ingestMs: number;
  ingestConcurrency: number;
  parseMs: number;
}

export function benchConfig(argv: string[]): BenchConfig & { out: string } {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes("--quick");
  const sizes = arg("--sizes")
    ?.split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  return {
    quick,
    sizes: sizes?.length ? sizes : quick ? [1000, 5000] : [1000, 10_000, 50_000],
    latencyMs: Number(arg("--latency") ?? 20),
    bandwidthBytesPerSec: Number(arg("--bandwidth") ?? 10 * 1024 * 1024),
    saveReps: quick ? 5 : 20,
    heavyReps: (n) => (quick ? 1 : n >= 50_000 ? 1 : 3),
    lightReps: quick ? 2 : 5,
    warmRequests: quick ? 1000 : 2000,
    ingestMs: quick ? 2500 : 10_000,
    ingestConcurrency: 8,
    parseMs: quick ? 300 : 1500,
    out: arg("--out") ?? fileURLToPath(new URL(quick ? "./results/quick.json" : "./results/latest.json", import.meta.url)),
  };
}

export interface BenchResults {
  generatedAt: string;
  mode: "quick" | "full";
  machine: { nproc: number; cpu: string; node: string; platform: string };
  config: Omit<BenchConfig, "heavyReps"> & { heavyReps: Record<string, number> };
  parse: { seed: ParseResult; checkpost: ParseResult; corpusComments: number; corpusBytes: number };
  scenarios: ScenarioResult[];
  /** One bot replica on SQLite and on PostgreSQL (bench/store-compare.ts). */
  stores: StoreRun[];
  /** Dashboard writes per hour, busy (20 agents checkpointing every ~10 min) and idle (all stopped). */
  dashboardWrites?: { busy: DashboardWritesResult; idle: DashboardWritesResult };
  /** Bounded history (bench/retention.ts): the simulated session and the store-backed bot at each N. */
  retention?: RetentionRun;
  /** The issue body's dashboard section at 20 and 10,000 agents (bench/body-size.ts). */
  bodySize?: BodySizeResult;
  wallSeconds: number;
}

export async function runBench(cfg: BenchConfig, log: (s: string) => void = (s) => process.stderr.write(`${s}\n`)): Promise<BenchResults> {
  const t0 = performance.now();
  const scenarios: ScenarioResult[] = [];
  for (const n of cfg.sizes) {
    const o: ScenarioOptions = {
      n,
      latencyMs: cfg.latencyMs,
      bandwidthBytesPerSec: cfg.bandwidthBytesPerSec,
      saveReps: cfg.saveReps,
      heavyReps: cfg.heavyReps(n),
      lightReps: cfg.lightReps,
      warmRequests: cfg.warmRequests,
      ingestMs: cfg.ingestMs,
      ingestConcurrency: cfg.ingestConcurrency,
      log,
    };
    scenarios.push(await runScenario(o));
  }
  const stores = process.argv.includes("--no-postgres")
    ? []
    : await runStoreCompare({ n: cfg.quick ? 1000 : 10_000, warmRequests: cfg.warmRequests, ingestMs: cfg.ingestMs, ingestConcurrency: cfg.ingestConcurrency, log });
  const retention = process.argv.includes("--no-retention")
    ? undefined
    : await runRetention({
        sizes: cfg.sizes,
        hours: cfg.quick ? 24 : 72,
        latencyMs: cfg.latencyMs,
        bandwidthBytesPerSec: cfg.bandwidthBytesPerSec,
        warmRequests: cfg.warmRequests,
        ingestMs: cfg.ingestMs,
        ingestConcurrency: cfg.ingestConcurrency,
        log,
      });
  log("parse throughput");
  const corpus = generateDataset(Math.max(...cfg.sizes), Date.now(), 7).comments.map((c) => c.body);
  const parse = { ...parseThroughput(corpus, cfg.parseMs), corpusComments: corpus.length, corpusBytes: corpus.reduce((s, b) => s + Buffer.byteLength(b), 0) };
  log("issue body size at 20 and 10,000 agents");
  const bodySize = measureBodySize();
  log("dashboard writes per hour (simulated clock)");
  const dashboardWrites = { busy: simulateDashboardWrites({ hours: 2 }), idle: simulateDashboardWrites({ hours: 7, activeHours: 1 }) };
  log(
    `dashboard writes/h: busy ${dashboardWrites.busy.writesPerHour.toFixed(1)} (checkpoints/h ${dashboardWrites.busy.checkpointsPerHour.toFixed(1)}), idle ${dashboardWrites.idle.idleWritesPerHour?.toFixed(1)}`,
  );
  return {
    generatedAt: new Date().toISOString(),
    mode: cfg.quick ? "quick" : "full",
    machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version, platform: `${process.platform} ${process.arch}` },
    config: { ...cfg, heavyReps: Object.fromEntries(cfg.sizes.map((n) => [n, cfg.heavyReps(n)])) },
    parse,
    scenarios,
    stores,
    dashboardWrites,
    ...(retention ? { retention } : {}),
    bodySize,
    wallSeconds: (performance.now() - t0) / 1000,
  };
}

async function main() {
  const cfg = benchConfig(process.argv.slice(2));
  if (process.argv.includes("--only-stores")) {
    // Just the SQLite/PostgreSQL comparison (docs/scale-out.md sizing), at the full or quick counts.
    const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1];
    const runs = await runStoreCompare({
      ...(process.argv.includes("--stores") ? { stores: arg("--stores")?.split(",") as ("sqlite" | "postgres")[] } : {}),
      ...(process.argv.includes("--pg-durable") ? { pgServer: "durable" as const } : {}),
      pgStats: process.argv.includes("--pg-stats"),
      n: cfg.quick ? 1000 : 10_000,
      warmRequests: cfg.warmRequests,
      ingestMs: cfg.ingestMs,
      ingestConcurrency: cfg.ingestConcurrency,
      log: (s) => process.stderr.write(`${s}\n`),
    });
    process.stdout.write(`${formatStoreCompare(runs)}\n`);
    process.exit(0);
  }
  const results = await runBench(cfg);
  const report = buildReport(results);
  process.stdout.write(`${formatReport(results, report)}\n`);
  if (results.stores.length) process.stdout.write(`${formatStoreCompare(results.stores)}\n`);
  if (results.retention) process.stdout.write(`\n${formatRetention(results.retention)}\n`);
  mkdirSync(dirname(cfg.out), { recursive: true });
  // The file records where it was written relative to the repository, never an absolute path.
  const config = { ...results.config, out: relative(fileURLToPath(new URL("..", import.meta.url)), cfg.out) };
  writeFileSync(cfg.out, `${JSON.stringify({ ...results, config, table: report.rows, targets: report.targets }, null, 2)}\n`);
  process.stderr.write(`wrote ${cfg.out}\n`);
  // Leave no handle open (keep-alive sockets, timers): the benchmark is done.
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
