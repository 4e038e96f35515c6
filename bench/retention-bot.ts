/**
 * Bounded history, the bot's side (issue 11 (b) and (c)): at N comments of history, the bot in its own
 * process (bench/bot-harness.ts: compiled JS, --optimize-for-size, MALLOC_ARENA_MAX=2, gc() before each
 * reading) on a SQLite store file. First start (reads the issue from Forgejo), stop, then a second process
 * restarts from the store; its RSS after reading, warm resume through /api/resume, webhook ingest, its RSS
 * after ingest. Used by `npm run bench` and `npm run bench:retention`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProjectionSnapshot } from "../src/projection/index.ts";
import { benchBotConfig, forkBot } from "./bot-harness.ts";
import type { BotChild } from "./bot-harness.ts";
import { AGENT_LOGIN } from "./data.ts";
import { measureWarmResume } from "./warm-resume.ts";
import { runIngest } from "./ingest.ts";
import { createWorld } from "./scenario.ts";

const MB = 1024 * 1024;

export interface RetentionBotOptions {
  n: number;
  latencyMs: number;
  bandwidthBytesPerSec: number;
  warmRequests: number;
  ingestMs: number;
  ingestConcurrency: number;
  log?: (line: string) => void;
}

export interface BotStart {
  ms: number;
  /** Forgejo requests and response bytes of the start. */
  requests: number;
  bytes: number;
  /** Comment-list requests (a restart from the store makes one, with `since`). */
  commentReads: number;
  rssMb: number;
  heapMb: number;
  comments: number;
}

export interface RetentionBotResult {
  n: number;
  /** The bot process with its modules loaded, before createBot. */
  rssBaselineMb: number;
  first: BotStart;
  restart: BotStart;
  warm: { requests: number; p50Ms: number; p99Ms: number; forgeRequests: number; correct: number; total: number };
  ingest: { deliveries: number; perSecond: number; p99Ms: number; inserted: number; lost: number; rssMb: number; heapMb: number };
}

type StartReply = { url: string; startMs: number; memory: { rss: number; heapUsed: number }; comments: number };

/** BENCH_HEAP_DIR=dir: a heap snapshot of the bot after the restart and after ingest (taken after the RSS reading). */
async function heapSnapshot(child: BotChild, name: string): Promise<void> {
  const dir = process.env["BENCH_HEAP_DIR"];
  if (dir) await child.call("heapsnapshot", { file: join(dir, `bot-${name}.heapsnapshot`) });
}

export async function runRetentionBot(o: RetentionBotOptions): Promise<RetentionBotResult> {
  const log = o.log ?? (() => {});
  const w = await createWorld(o.n, o);
  const { forge } = w;
  const dir = mkdtempSync(join(tmpdir(), "checkpost-bench-retention-"));
  const secret = randomBytes(16).toString("hex");
  const config = { ...benchBotConfig({ forgeUrl: forge.url, token: w.botToken, owner: "agent", repo: "work", secret, trusted: [AGENT_LOGIN] }), storeFile: join(dir, "projection.sqlite") };
  const children: BotChild[] = [];
  const start = async (label: string): Promise<{ child: BotChild; reply: StartReply; start: BotStart; baseline: number }> => {
    const child = await forkBot();
    children.push(child);
    const baseline = (await child.call<{ rss: number }>("memory")).rss;
    log(`N=${o.n}: bot ${label}`);
    forge.admin.resetStats();
    const reply = await child.call<StartReply>("start", { config });
    const s = forge.admin.stats();
    const commentReads = s.requests["GET /repos/{owner}/{repo}/issues/{index}/comments"] ?? 0;
    return {
      child,
      reply,
      baseline,
      start: { ms: reply.startMs, requests: s.totalRequests, bytes: s.bytesSent, commentReads, rssMb: reply.memory.rss / MB, heapMb: reply.memory.heapUsed / MB, comments: reply.comments },
    };
  };
  try {
    const first = await start("first start (full read from Forgejo)");
    // Entries and the projection's folded state reach the store; stop writes the state again, then the process exits.
    await first.child.call("idle");
    await first.child.call("stop");
    const second = await start("restart from the store");
    const { child, reply } = second;
    await heapSnapshot(child, `restart-${o.n}`);

    log(`N=${o.n}: warm resume ×${o.warmRequests} from the restarted bot`);
    const warm = await measureWarmResume({ forge, botUrl: reply.url, probes: w.dataset.probes, requests: o.warmRequests });

    log(`N=${o.n}: webhook ingest for ${o.ingestMs / 1000} s into the restarted bot`);
    const ing = await runIngest({
      forge,
      owner: "agent",
      repo: "work",
      issue: w.issue,
      botUrl: reply.url,
      webhookPath: config.webhookPath,
      secret,
      durationMs: o.ingestMs,
      concurrency: o.ingestConcurrency,
      seed: o.n + 11,
    });
    await child.call("idle");
    const snap = await child.call<ProjectionSnapshot>("snapshot");
    const mem = await child.call<{ rss: number; heapUsed: number }>("memory");
    await heapSnapshot(child, `ingest-${o.n}`);
    await child.call("stop");
    return {
      n: o.n,
      rssBaselineMb: second.baseline / MB,
      first: first.start,
      restart: second.start,
      warm: { requests: warm.requests, p50Ms: warm.p50Ms, p99Ms: warm.p99Ms, forgeRequests: warm.forgeRequests, correct: warm.correct, total: warm.total },
      ingest: {
        deliveries: ing.deliveries,
        perSecond: ing.perSecond,
        p99Ms: ing.p99Ms,
        inserted: ing.inserted,
        // Every comment of the issue (the data set, then what ingest inserted) must be in the bot's projection.
        lost: Math.max(0, w.dataset.comments.length + ing.inserted - snap.comments),
        rssMb: mem.rss / MB,
        heapMb: mem.heapUsed / MB,
      },
    };
  } finally {
    for (const c of children) c.kill();
    await forge.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface RetentionTarget {
  target: string;
  result: string;
  met: boolean;
}

/** The issue's targets for the bot's side of bounded history. */
export function retentionTargets(runs: readonly RetentionBotResult[]): RetentionTarget[] {
  if (!runs.length) return [];
  const byN = [...runs].sort((a, b) => a.n - b.n);
  const small = byN[0] as RetentionBotResult;
  const big = byN[byN.length - 1] as RetentionBotResult;
  const at = (f: (r: RetentionBotResult) => string) => byN.map((r) => `${f(r)} @${r.n >= 1000 ? `${r.n / 1000}k` : r.n}`).join(", ");
  const maxRss = (r: RetentionBotResult) => Math.max(r.restart.rssMb, r.ingest.rssMb);
  const growth = (f: (r: RetentionBotResult) => number) => f(big) / f(small);
  return [
    {
      target: "restart from the store ≤ 1 s at every N (one `since` read)",
      result: at((r) => `${Math.round(r.restart.ms)} ms/${r.restart.commentReads} read`),
      met: byN.every((r) => r.restart.ms <= 1000 && r.restart.commentReads <= 1),
    },
    { target: `bot RSS ≤ 100 MiB @${big.n / 1000}k (after reading, after ingest)`, result: `${big.restart.rssMb.toFixed(0)} / ${big.ingest.rssMb.toFixed(0)} MiB`, met: maxRss(big) <= 100 },
    {
      target: `bot RSS within 1.2× from ${small.n / 1000}k to ${big.n / 1000}k`,
      result: `after reading ${growth((r) => r.restart.rssMb).toFixed(2)}×, after ingest ${growth((r) => r.ingest.rssMb).toFixed(2)}×`,
      met: growth((r) => r.restart.rssMb) <= 1.2 && growth((r) => r.ingest.rssMb) <= 1.2,
    },
    {
      target: "warm resume p99 < 2 ms at every N, from the store-backed bot",
      result: at((r) => `${r.warm.p99Ms.toFixed(2)} ms`),
      met: byN.every((r) => r.warm.p99Ms < 2 && r.warm.forgeRequests === 0),
    },
    { target: "no event lost across the restart and ingest", result: at((r) => `${r.ingest.lost} lost`), met: byN.every((r) => r.ingest.lost === 0 && r.warm.correct === r.warm.total) },
  ];
}

export function formatRetentionBot(runs: readonly RetentionBotResult[]): string {
  const rows = runs.map(
    (r) =>
      `| ${r.n.toLocaleString("en-US").padStart(6)} | ${Math.round(r.first.ms).toLocaleString("en-US")} ms, ${r.first.commentReads} reads, ${(r.first.bytes / MB).toFixed(1)} MiB | ` +
      `${Math.round(r.restart.ms).toLocaleString("en-US")} ms, ${r.restart.commentReads} read, ${(r.restart.bytes / 1024).toFixed(1)} KiB | ` +
      `${r.rssBaselineMb.toFixed(0)} / ${r.first.rssMb.toFixed(0)} / ${r.restart.rssMb.toFixed(0)} / ${r.ingest.rssMb.toFixed(0)} MiB (heap ${r.first.heapMb.toFixed(0)} / ${r.restart.heapMb.toFixed(0)} / ${r.ingest.heapMb.toFixed(0)}) | ` +
      `${r.warm.p50Ms.toFixed(2)} / ${r.warm.p99Ms.toFixed(2)} ms | ${Math.round(r.ingest.perSecond).toLocaleString("en-US")}/s, ${r.ingest.lost} lost |`,
  );
  const targets = retentionTargets(runs).map((t) => `| ${t.target} | ${t.result} | ${t.met ? "met" : "NO"} |`);
  return [
    "Bounded history, the bot (own process, SQLite store):",
    "|      N | first start (Forgejo) | restart from the store | RSS: modules / after first read / after restart / after ingest | warm resume p50 / p99 | ingest |",
    "|--------|-----------------------|------------------------|------------------------------------------------------------------|-----------------------|--------|",
    ...rows,
    "",
    "| target | result | met |",
    "|--------|--------|-----|",
    ...targets,
  ].join("\n");
}
