/** Warm resume through the bot's `/api/resume`: the probes, over keep-alive, client-side latency. */
import type { ForgeServer } from "../src/embedded-forge/index.ts";
import { BENCH_API_TOKEN } from "./bot-harness.ts";
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

/** 200 warm-up calls, then `requests` measured ones cycling over the probes. */
export async function measureWarmResume(o: { forge: ForgeServer; botUrl: string; probes: readonly Probe[]; requests: number }): Promise<WarmResume> {
  const agent = keepAliveAgent(1);
  const urls = o.probes.map((p) => `${o.botUrl}/api/resume?agent=${encodeURIComponent(p.agent)}&session=${encodeURIComponent(p.session)}`);
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
