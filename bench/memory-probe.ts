/**
 * Where the bot's RSS goes, stage by stage: the bot process as the bench runs it (bench/bot-harness.ts),
 * on a SQLite store file, at N comments: modules loaded, after the first read, after a restart from the
 * store, after webhook ingest. Each stage prints RSS by mapping (/proc/self/smaps) and V8's spaces; with
 * --heap DIR it also writes a heap snapshot per stage (summarise with bench/heap-summary.ts; a snapshot
 * inflates the RSS of every later stage, so take the figures from a run without it).
 *
 *   node --import tsx bench/memory-probe.ts --n 50000 [--ingest-ms 2500] [--heap DIR] [--warm] [--keep] [--latency 20]
 *
 * --warm: 2,000 warm resumes after the restart (profile them with BENCH_BOT_NODE_OPTIONS="--cpu-prof …").
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchBotConfig, forkBot } from "./bot-harness.ts";
import type { BotChild } from "./bot-harness.ts";
import { AGENT_LOGIN } from "./data.ts";
import { runIngest } from "./ingest.ts";
import { measureWarmResume } from "./warm-resume.ts";
import { createWorld } from "./scenario.ts";

const MB = 1024 * 1024;
const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 1000);
const ingestMs = Number(arg("--ingest-ms") ?? 2500);
const heapDir = arg("--heap");
// --latency 20: the bench's forge (+20 ms a request, 10 MiB/s), whose first read the main scenario's RSS figure follows.
const latencyMs = Number(arg("--latency") ?? 0);

type Detail = {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rssByMapping: Record<string, number>;
  spaces: Record<string, { committed: number; used: number }>;
  anonymousOver512KiB?: [number, number][];
};

function show(stage: string, d: Detail): void {
  const f = (b: number) => (b / MB).toFixed(1);
  const maps = Object.entries(d.rssByMapping)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${f(v)}`)
    .join(", ");
  const spaces = Object.entries(d.spaces)
    .filter(([, s]) => s.committed > 0)
    .map(([k, s]) => `${k.replace("_space", "")} ${f(s.used)}/${f(s.committed)}`)
    .join(", ");
  console.log(`${stage.padEnd(14)} rss ${f(d.rss)} MiB | heap used/total ${f(d.heapUsed)}/${f(d.heapTotal)} | external ${f(d.external)} (array buffers ${f(d.arrayBuffers)})`);
  console.log(`${"".padEnd(14)} rss by mapping: ${maps}`);
  console.log(`${"".padEnd(14)} V8 spaces used/committed: ${spaces}`);
  const anon = (d.anonymousOver512KiB ?? []).map(([size, rss]) => `${(rss / 1024).toFixed(1)} of ${(size / 1024).toFixed(1)}`).join(", ");
  console.log(`${"".padEnd(14)} anonymous mappings ≥ 0.5 MiB resident (MiB resident of mapped): ${anon}`);
}

async function stage(child: BotChild, name: string): Promise<void> {
  show(name, await child.call<Detail>("memory-detail"));
  if (heapDir) await child.call("heapsnapshot", { file: join(heapDir, `probe-${n}-${name}.heapsnapshot`) });
}

const w = await createWorld(n, { latencyMs, bandwidthBytesPerSec: latencyMs > 0 ? 10 * 1024 * 1024 : 0 });
const dir = mkdtempSync(join(tmpdir(), "checkpost-memory-probe-"));
const secret = randomBytes(16).toString("hex");
const config = { ...benchBotConfig({ forgeUrl: w.forge.url, token: w.botToken, owner: "agent", repo: "work", secret, trusted: [AGENT_LOGIN] }), storeFile: join(dir, "projection.sqlite") };
const children: BotChild[] = [];
try {
  const first = await forkBot();
  children.push(first);
  await stage(first, "modules");
  await first.call("start", { config });
  await first.call("idle");
  await stage(first, "first-read");
  await first.call("stop");
  await first.exited;
  const second = await forkBot();
  children.push(second);
  const reply = await second.call<{ url: string }>("start", { config });
  await stage(second, "restart");
  await second.call("idle");
  await new Promise((r) => setTimeout(r, 2000));
  await stage(second, "restart+2s");
  if (argv.includes("--warm")) {
    const warm = await measureWarmResume({ forge: w.forge, botUrl: reply.url, probes: w.dataset.probes, requests: 2000 });
    console.log(`warm resume: p50 ${warm.p50Ms.toFixed(2)} ms, p99 ${warm.p99Ms.toFixed(2)} ms, ${warm.forgeRequests} Forgejo requests (loaded machine: not a figure)`);
  }
  const ing = await runIngest({
    forge: w.forge,
    owner: "agent",
    repo: "work",
    issue: w.issue,
    botUrl: reply.url,
    webhookPath: config.webhookPath,
    secret,
    durationMs: ingestMs,
    concurrency: 8,
    seed: n + 11,
  });
  await second.call("idle");
  console.log(`ingest: ${ing.deliveries} deliveries, ${Math.round(ing.perSecond)}/s (loaded machine: not a figure)`);
  await stage(second, "ingest");
  await second.call("stop");
  await second.exited; // its --cpu-prof profile is written at exit
} finally {
  for (const c of children) c.kill();
  await w.forge.close();
  if (argv.includes("--keep")) console.log(`store kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
