/**
 * What one warm `/api/resume` costs the bot, in figures that do not depend on the machine's load: the bot
 * process's CPU time per call and its bytes allocated per call (a sampled allocation profile, garbage
 * included), beside the client-side p50/p99 of the same calls; and what the slow calls are: each call's
 * window is matched against the GC pauses of the bot and of the client's process (the bench process, which
 * also runs the embedded forge), on one epoch clock. The bot as the bench runs it (compiled JS,
 * `--optimize-for-size`, store on a file), after its first read of N comments and its dashboard write.
 *
 *   node --import tsx bench/warm-probe.ts --n 1000 [--requests 2000] [--restart] [--no-flush] [--alloc FILE.heapprofile | --cpu FILE.cpuprofile]
 *   BENCH_BOT_NODE_OPTIONS="--trace-gc" …   # the bot's GC events during the calls (stdout)
 *   BENCH_BOT_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR" …   # then bench/cpu-summary.ts
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { BENCH_API_TOKEN, benchBotConfig, forkBot } from "./bot-harness.ts";
import { AGENT_LOGIN } from "./data.ts";
import { httpRequest, keepAliveAgent, percentile } from "./http.ts";
import { createWorld } from "./scenario.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 1000);
const requests = Number(arg("--requests") ?? 2000);
const allocFile = arg("--alloc");
const cpuFile = arg("--cpu");

interface SampledNode {
  selfSize: number;
  children: SampledNode[];
}
const sampledBytes = (node: SampledNode): number => node.children.reduce((s, c) => s + sampledBytes(c), node.selfSize);
type Pause = { at: number; ms: number; kind: number };
const epochNow = () => performance.timeOrigin + performance.now();

const w = await createWorld(n, { latencyMs: 0, bandwidthBytesPerSec: 0 });
const dir = mkdtempSync(join(tmpdir(), "checkpost-warm-probe-"));
const secret = randomBytes(16).toString("hex");
const config = { ...benchBotConfig({ forgeUrl: w.forge.url, token: w.botToken, owner: "agent", repo: "work", secret, trusted: [AGENT_LOGIN] }), storeFile: join(dir, "projection.sqlite") };
// --restart: measure the bot restarted from its store, as bench/retention-bot.ts does (first start, idle, stop, start again).
const restart = argv.includes("--restart");
if (restart) {
  const first = await forkBot();
  await first.call("start", { config });
  await first.call("idle");
  await first.call("stop");
  await first.exited;
}
const bot = await forkBot();
const agent = keepAliveAgent(1);
try {
  const reply = await bot.call<{ url: string }>("start", { config });
  // --no-flush: measure right after start, as bench/retention-bot.ts did (the bot's own timers may still run).
  if (!argv.includes("--no-flush")) await bot.call("flush");
  const urls = w.dataset.probes.map((p) => `${reply.url}/api/resume?agent=${encodeURIComponent(p.agent)}&session=${encodeURIComponent(p.session)}`);
  const headers = { authorization: `Bearer ${BENCH_API_TOKEN}` };
  // 200 warm-up calls, as the bench's warm resume makes, so the measured ones run optimised code.
  for (let i = 0; i < 200; i++) await httpRequest(urls[i % urls.length] as string, { agent, headers });
  console.log("--- warm phase starts");
  if (allocFile) await bot.call("alloc-start");
  else if (cpuFile) await bot.call("cpu-prof-start");
  const clientPauses: Pause[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) clientPauses.push({ at: performance.timeOrigin + e.startTime, ms: e.duration, kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0 });
  });
  obs.observe({ entryTypes: ["gc"] });
  await bot.call("gc-watch-start");
  await bot.call("serve-watch-start");
  const cpu0 = await bot.call<NodeJS.CpuUsage>("cpu");
  const calls: { t0: number; t1: number; ms: number }[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = epochNow();
    const r = await httpRequest(urls[i % urls.length] as string, { agent, headers });
    calls.push({ t0, t1: epochNow(), ms: r.ms });
  }
  const cpu1 = await bot.call<NodeJS.CpuUsage>("cpu");
  const botPauses = await bot.call<Pause[]>("gc-watch-stop");
  const served = await bot.call<{ ms: number; cpuMs: number }[]>("serve-watch-stop");
  obs.disconnect();
  console.log("--- warm phase ends");
  const cpuUs = cpu1.user - cpu0.user + (cpu1.system - cpu0.system);
  if (cpuFile && !allocFile) await bot.call("cpu-prof-stop", { file: cpuFile });
  let alloc = "";
  if (allocFile) {
    await bot.call("alloc-stop", { file: allocFile });
    const bytes = sampledBytes((JSON.parse(readFileSync(allocFile, "utf8")) as { head: SampledNode }).head);
    alloc = `, allocated ≈ ${(bytes / requests / 1024).toFixed(1)} KiB per call (sampled, ${(bytes / 1048576).toFixed(1)} MiB over ${requests} calls)`;
  }
  const lat = calls.map((c) => c.ms);
  const p99 = percentile(lat, 99);
  console.log(
    `N=${n}${restart ? " (restarted from the store)" : ""}: warm resume p50 ${percentile(lat, 50).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, max ${percentile(lat, 100).toFixed(2)} ms; ` +
      `bot CPU ${(cpuUs / requests).toFixed(0)} µs per call (user ${((cpu1.user - cpu0.user) / requests).toFixed(0)}, system ${((cpu1.system - cpu0.system) / requests).toFixed(0)})${alloc}`,
  );
  const own = served.map((x) => x.ms);
  const ownSlow = served.filter((x) => x.ms >= percentile(own, 99));
  console.log(
    `bot's own time per call (request event → response finish): p50 ${percentile(own, 50).toFixed(3)} ms, p99 ${percentile(own, 99).toFixed(3)} ms, max ${percentile(own, 100).toFixed(2)} ms, ${own.filter((x) => x >= 2).length} calls ≥ 2 ms; ` +
      `its slowest 1 %: wall ${ownSlow.reduce((s, x) => s + x.ms, 0).toFixed(1)} ms, bot CPU meanwhile ${ownSlow.reduce((s, x) => s + x.cpuMs, 0).toFixed(1)} ms`,
  );
  // The bot's CPU time during each call (process-wide, GC threads included): what descheduling on a loaded machine does not inflate.
  const cpuPer = served.map((x) => x.cpuMs);
  console.log(
    `bot CPU during each call: p50 ${percentile(cpuPer, 50).toFixed(3)} ms, p99 ${percentile(cpuPer, 99).toFixed(3)} ms, max ${percentile(cpuPer, 100).toFixed(2)} ms, ${cpuPer.filter((x) => x >= 2).length} calls ≥ 2 ms`,
  );
  const sum = (ps: Pause[]) => ps.reduce((s, p) => s + p.ms, 0);
  // kind 1 = minor (scavenge), 2 = major (mark-compact), 4 = incremental marking step, 8 = weak callbacks.
  const kinds = (ps: Pause[]) => [1, 2, 4, 8].map((k) => `${k}:${ps.filter((p) => p.kind === k).length}`).join(" ");
  console.log(`bot GC: ${botPauses.length} pauses (${kinds(botPauses)}), ${sum(botPauses).toFixed(1)} ms, max ${Math.max(0, ...botPauses.map((p) => p.ms)).toFixed(2)} ms`);
  console.log(`client GC: ${clientPauses.length} pauses (${kinds(clientPauses)}), ${sum(clientPauses).toFixed(1)} ms, max ${Math.max(0, ...clientPauses.map((p) => p.ms)).toFixed(2)} ms`);
  const overlaps = (c: { t0: number; t1: number }, ps: Pause[]) => ps.some((p) => p.at < c.t1 && p.at + p.ms > c.t0);
  for (const [label, slow] of [
    ["calls ≥ p99", calls.filter((c) => c.ms >= p99)],
    ["calls ≥ 2 ms", calls.filter((c) => c.ms >= 2)],
  ] as const) {
    const bot = slow.filter((c) => overlaps(c, botPauses)).length;
    const client = slow.filter((c) => overlaps(c, clientPauses)).length;
    const neither = slow.filter((c) => !overlaps(c, botPauses) && !overlaps(c, clientPauses)).length;
    console.log(`${label}: ${slow.length}; overlapping a bot GC pause ${bot}, a client GC pause ${client}, neither ${neither}`);
  }
  const withBotGc = calls.filter((c) => overlaps(c, botPauses));
  console.log(
    `calls overlapping a bot GC pause: ${withBotGc.length} of ${requests}, median ${percentile(
      withBotGc.map((c) => c.ms),
      50,
    ).toFixed(2)} ms`,
  );
  await bot.call("stop");
  await bot.exited;
} finally {
  agent.destroy();
  bot.kill();
  await w.forge.close();
  rmSync(dir, { recursive: true, force: true });
}
