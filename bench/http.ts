/** Small keep-alive HTTP helpers and statistics for the benchmark. */
import { Agent, request } from "node:http";

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

export interface HttpResult {
  status: number;
  body: string;
  ms: number;
}

export function httpRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string; agent: Agent }): Promise<HttpResult> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "GET", headers: opts.headers, agent: opts.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - t0 }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i] as number;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}
