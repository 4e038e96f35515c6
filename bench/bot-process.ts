/**
 * The bot in a child process of its own (clean RSS, its own core). Driven over
 * IPC by bench/bot-harness.ts: {cmd:"start", config} → {url, startMs, rss};
 * then "flush", "idle", "snapshot", "stats", "memory", "cpu", "gc-watch-start"/"gc-watch-stop", "serve-watch-start"/"serve-watch-stop",
 * "alloc-start"/"alloc-stop", "cpu-prof-start"/"cpu-prof-stop", "stop".
 * Run with: node --expose-gc --import tsx bench/bot-process.ts (forked).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { PerformanceObserver } from "node:perf_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import { pino } from "pino";
// Loaded up front so the "memory" baseline (before "start") includes every module the bot uses.
import { startBot } from "../src/app/start-bot.ts";
import type { Bot } from "../src/bot/create-bot.ts";
import type { BotConfig } from "../src/bot/bot-config.ts";

type Msg = { id: number; cmd: string; config?: BotConfig; file?: string };

let bot: Bot | null = null;
/** The inspector session of the allocation or CPU profile under way (one at a time). */
let profiler: Session | null = null;
/** GC pauses seen since "gc-watch-start": epoch ms (timeOrigin-based, comparable across processes), duration, kind. */
let gcSeen: { at: number; ms: number; kind: number }[] = [];
let gcWatch: PerformanceObserver | null = null;
/**
 * Each request since "serve-watch-start", from the request event to the response's finish: wall ms and the
 * process's CPU ms meanwhile (all its threads). Wall far above CPU: the process waited (scheduler, I/O).
 */
let served: { ms: number; cpuMs: number }[] = [];
let serveWatch: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, gc: typeof (globalThis as { gc?: unknown }).gc === "function" };
}

/** RSS by where it lives (/proc/self/smaps) beside V8's own spaces: what `rss` is made of. */
function memoryDetail() {
  const m = memory();
  const rss: Record<string, number> = {};
  // Each anonymous mapping's size and resident bytes (KiB): V8's pages and code range, glibc's second arena (64 MiB), thread stacks.
  const anon: [number, number][] = [];
  let size = 0;
  let name = "";
  try {
    for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (head) {
        const path = head[1] ?? "";
        const [from, to] = line
          .split(" ")[0]
          ?.split("-")
          .map((h) => Number.parseInt(h, 16)) ?? [0, 0];
        size = ((to ?? 0) - (from ?? 0)) / 1024;
        name = path === "" ? "anonymous" : path.startsWith("[") ? path : path.endsWith(".node") || path.includes(".so") ? "shared libraries" : path.includes("node") ? "node binary" : "other files";
        continue;
      }
      const kb = /^Rss:\s+(\d+) kB/.exec(line);
      if (kb) rss[name] = (rss[name] ?? 0) + Number(kb[1]) * 1024;
      if (kb && name === "anonymous" && Number(kb[1]) >= 512) anon.push([size, Number(kb[1])]);
    }
  } catch {
    // not Linux: the V8 figures alone
  }
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { committed: s.physical_space_size, used: s.space_used_size }]));
  return { ...m, rssByMapping: rss, spaces, anonymousOver512KiB: anon.sort((a, b) => b[1] - a[1]) };
}

async function botStats() {
  if (!bot) throw new Error("bot not started");
  const m = bot.metrics;
  const hist = await m.handleSeconds.get();
  const buckets = hist.values.filter((v) => v.metricName?.endsWith("_bucket")).map((v) => ({ le: v.labels.le, count: v.value }));
  const count = hist.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
  const sum = hist.values.find((v) => v.metricName?.endsWith("_sum"))?.value ?? 0;
  const deliveries = (await m.deliveries.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
  const writes = (await m.dashboardWrites.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
  const dashboardWrites = bot.trackers().reduce((s, t) => s + t.dashboard.writes, 0);
  return { handle: { buckets, count, sum }, deliveries, writes, dashboardWrites };
}

/** Stop the profile under way, write it to `file`, and close its session. */
async function finishProfile(method: "HeapProfiler.stopSampling" | "Profiler.stop", file: string | undefined, misuse: string): Promise<{ file: string }> {
  if (!profiler || !file) throw new Error(misuse);
  const { profile } = method === "Profiler.stop" ? await profiler.post("Profiler.stop") : await profiler.post("HeapProfiler.stopSampling");
  writeFileSync(file, JSON.stringify(profile));
  profiler.disconnect();
  profiler = null;
  return { file };
}

async function handle(msg: Msg): Promise<unknown> {
  switch (msg.cmd) {
    case "start": {
      const t0 = performance.now();
      bot = await startBot(msg.config as BotConfig, { logger: pino({ level: "silent" }) });
      const startMs = performance.now() - t0;
      return { url: bot.url, startMs, memory: memory(), comments: bot.trackers()[0]?.projection.snapshot().comments ?? 0 };
    }
    case "flush":
      await bot?.idle();
      await bot?.flushDashboards();
      return { ok: true };
    case "idle":
      await bot?.idle();
      return { ok: true };
    case "poll":
      await bot?.pollAll();
      return { ok: true };
    case "snapshot":
      await bot?.idle();
      return bot?.trackers()[0]?.projection.snapshot() ?? null;
    case "stats":
      return botStats();
    case "memory":
      return memory();
    case "alloc-start": {
      // Sampled allocations, garbage included (what makes the GC work), until "alloc-stop" writes them.
      profiler = new Session();
      profiler.connect();
      await profiler.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return { ok: true };
    }
    case "alloc-stop":
      return finishProfile("HeapProfiler.stopSampling", msg.file, "alloc-stop needs alloc-start and a file");
    case "cpu-prof-start": {
      // A CPU profile of a window only (the warm calls, say), unlike --cpu-prof's whole life of the process.
      profiler = new Session();
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
      await profiler.post("Profiler.start");
      return { ok: true };
    }
    case "cpu-prof-stop":
      return finishProfile("Profiler.stop", msg.file, "cpu-prof-stop needs cpu-prof-start and a file");
    case "serve-watch-start": {
      if (!bot) throw new Error("bot not started");
      served = [];
      serveWatch = (_req, res) => {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        res.once("finish", () => {
          const c = process.cpuUsage(c0);
          served.push({ ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
        });
      };
      bot.server.prependListener("request", serveWatch);
      return { ok: true };
    }
    case "serve-watch-stop": {
      if (bot && serveWatch) bot.server.off("request", serveWatch);
      serveWatch = null;
      return served;
    }
    case "gc-watch-start": {
      gcSeen = [];
      gcWatch = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) gcSeen.push({ at: performance.timeOrigin + e.startTime, ms: e.duration, kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0 });
      });
      gcWatch.observe({ entryTypes: ["gc"] });
      return { ok: true };
    }
    case "gc-watch-stop": {
      gcWatch?.disconnect();
      gcWatch = null;
      return gcSeen;
    }
    case "cpu":
      // CPU time (user + system, µs): per delivery it explains the ingest rate on a loaded machine too.
      return process.cpuUsage();
    case "memory-detail":
      return memoryDetail();
    case "heapsnapshot": {
      // After a gc(), so the snapshot holds what is retained, not garbage (summarise with bench/heap-summary.ts).
      (globalThis as { gc?: () => void }).gc?.();
      return { file: writeHeapSnapshot(msg.file) };
    }
    case "stop":
      await bot?.stop();
      bot = null;
      setImmediate(() => process.exit(0));
      return { ok: true };
    default:
      throw new Error(`unknown command ${msg.cmd}`);
  }
}

process.on("message", (msg: Msg) => {
  handle(msg).then(
    (result) => process.send?.({ id: msg.id, result }),
    (e: unknown) => process.send?.({ id: msg.id, error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) }),
  );
});
process.send?.({ id: 0, result: "ready" });
