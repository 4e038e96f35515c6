/**
 * What one warm `/api/resume` costs the bot, in figures that do not depend on the machine's load: the bot
 * process's CPU time per call and its bytes allocated per call (a sampled allocation profile, garbage
 * included), beside the client-side p50/p99 of the same calls. The bot as the bench runs it (compiled JS,
 * `--optimize-for-size`, store on a file), after its first read of N comments and its dashboard write.
 *
 *   node --import tsx bench/warm-probe.ts --n 1000 [--requests 2000] [--alloc FILE.heapprofile]
 *   BENCH_BOT_NODE_OPTIONS="--trace-gc" …   # the bot's GC events during the calls (stdout)
 *   BENCH_BOT_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR" …   # then bench/cpu-summary.ts
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchBotConfig, forkBot } from "./bot-harness.ts";
import { AGENT_LOGIN } from "./data.ts";
import { measureWarmResume } from "./warm-resume.ts";
import { createWorld } from "./scenario.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 1000);
const requests = Number(arg("--requests") ?? 2000);
const allocFile = arg("--alloc");

interface SampledNode {
  selfSize: number;
  children: SampledNode[];
}
const sampledBytes = (node: SampledNode): number => node.children.reduce((s, c) => s + sampledBytes(c), node.selfSize);

const w = await createWorld(n, { latencyMs: 0, bandwidthBytesPerSec: 0 });
const dir = mkdtempSync(join(tmpdir(), "checkpost-warm-probe-"));
const secret = randomBytes(16).toString("hex");
const config = { ...benchBotConfig({ forgeUrl: w.forge.url, token: w.botToken, owner: "agent", repo: "work", secret, trusted: [AGENT_LOGIN] }), storeFile: join(dir, "projection.sqlite") };
const bot = await forkBot();
try {
  const reply = await bot.call<{ url: string }>("start", { config });
  await bot.call("flush");
  console.log("--- warm phase starts");
  // Warm-up round (not measured), so the measured calls see optimised code, as the bench's do.
  await measureWarmResume({ forge: w.forge, botUrl: reply.url, probes: w.dataset.probes, requests: 200 });
  if (allocFile) await bot.call("alloc-start");
  const cpu0 = await bot.call<NodeJS.CpuUsage>("cpu");
  const warm = await measureWarmResume({ forge: w.forge, botUrl: reply.url, probes: w.dataset.probes, requests });
  const cpu1 = await bot.call<NodeJS.CpuUsage>("cpu");
  // 2 IPC calls and the 200 unmeasured warm-up calls of measureWarmResume are in the CPU window too.
  const calls = requests + 200;
  const cpuUs = cpu1.user - cpu0.user + (cpu1.system - cpu0.system);
  console.log("--- warm phase ends");
  let alloc = "";
  if (allocFile) {
    await bot.call("alloc-stop", { file: allocFile });
    const bytes = sampledBytes((JSON.parse(readFileSync(allocFile, "utf8")) as { head: SampledNode }).head);
    alloc = `, allocated ≈ ${(bytes / calls / 1024).toFixed(1)} KiB per call (sampled, ${(bytes / 1048576).toFixed(1)} MiB over ${calls} calls)`;
  }
  console.log(
    `N=${n}: warm resume p50 ${warm.p50Ms.toFixed(3)} ms, p99 ${warm.p99Ms.toFixed(3)} ms, max ${warm.maxMs.toFixed(2)} ms, ${warm.forgeRequests} Forgejo requests, correct ${warm.correct}/${warm.total}; ` +
      `bot CPU ${(cpuUs / calls).toFixed(0)} µs per call (user ${((cpu1.user - cpu0.user) / calls).toFixed(0)}, system ${((cpu1.system - cpu0.system) / calls).toFixed(0)})${alloc}`,
  );
  await bot.call("stop");
  await bot.exited;
} finally {
  bot.kill();
  await w.forge.close();
  rmSync(dir, { recursive: true, force: true });
}
