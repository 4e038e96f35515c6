/**
 * Warm resume through the bot's `/api/resume`: the probes, over keep-alive, client-side latency, taken
 * by a lean client in its own process (bench/warm-client.ts). BENCH_WARM_CLIENT=in-process measures
 * from the bench process instead, as before issue 32 (its own forge and HTTP client beside the calls).
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ForgeServer } from "../src/embedded-forge/index.ts";
import { BENCH_API_TOKEN, compileBenchProcesses } from "./bot-harness.ts";
import type { Probe } from "./data.ts";
import { refOf } from "./data.ts";
import { httpRequest, keepAliveAgent, percentile } from "./http.ts";

export interface WarmResume {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Forgejo requests the bot made meanwhile (the answer must come from memory: 0). */
  forgeRequests: number;
  /** Probes answered with their ground truth (each asked once in the first round). */
  correct: number;
  total: number;
}

/** Warm-up calls before the measured ones: enough for V8 to optimise the bot's path (200 left it half-warm: docs/benchmarks.md). */
export const WARM_UP_CALLS = 1000;

/** `WARM_UP_CALLS` warm-up calls, then `requests` measured ones cycling over the probes. */
export async function measureWarmResume(o: { forge: ForgeServer; botUrl: string; probes: readonly Probe[]; requests: number }): Promise<WarmResume> {
  const urls = o.probes.map((p) => `${o.botUrl}/api/resume?agent=${encodeURIComponent(p.agent)}&session=${encodeURIComponent(p.session)}`);
  if (process.env["BENCH_WARM_CLIENT"] === "in-process") return inProcess(o, urls);
  compileBenchProcesses();
  const script = fileURLToPath(new URL("../dist-bench/bench/warm-client.js", import.meta.url));
  const child = fork(script, [JSON.stringify({ urls, token: BENCH_API_TOKEN, warmup: WARM_UP_CALLS, requests: o.requests })], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const r = await new Promise<{ latenciesMs: number[]; bodies: string[] }>((resolve, reject) => {
    child.on("message", (m: unknown) => {
      if (m === "warm") {
        // Counted from here: Forgejo requests the bot makes while the measured calls run.
        o.forge.admin.resetStats();
        child.send("go");
      } else resolve(m as { latenciesMs: number[]; bodies: string[] });
    });
    child.once("error", reject);
    void exited.then((code) => reject(new Error(`the warm-resume client exited (${code}) before answering`)));
  });
  const forgeRequests = o.forge.admin.stats().totalRequests;
  await exited;
  let correct = 0;
  for (const [k, b] of r.bodies.entries()) if (refOf((JSON.parse(b) as { state?: unknown }).state) === o.probes[k]?.truth) correct++;
  const lat = r.latenciesMs;
  return { requests: o.requests, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), maxMs: percentile(lat, 100), forgeRequests, correct, total: o.probes.length };
}

/** The measurement from the bench process itself (BENCH_WARM_CLIENT=in-process), 200 warm-up calls as before. */
async function inProcess(o: { forge: ForgeServer; probes: readonly Probe[]; requests: number }, urls: string[]): Promise<WarmResume> {
  const agent = keepAliveAgent(1);
  const headers = { authorization: `Bearer ${BENCH_API_TOKEN}` };
  try {
    for (let i = 0; i < 200; i++) await httpRequest(urls[i % urls.length] as string, { agent, headers });
    o.forge.admin.resetStats();
    const lat: number[] = [];
    let correct = 0;
    for (let i = 0; i < o.requests; i++) {
      const k = i % o.probes.length;
      const r = await httpRequest(urls[k] as string, { agent, headers });
      lat.push(r.ms);
      if (i < o.probes.length) correct += refOf((JSON.parse(r.body) as { state?: unknown }).state) === o.probes[k]?.truth ? 1 : 0;
    }
    const forgeRequests = o.forge.admin.stats().totalRequests;
    return { requests: o.requests, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), maxMs: percentile(lat, 100), forgeRequests, correct, total: o.probes.length };
  } finally {
    agent.destroy();
  }
}
