/**
 * The lean client of the warm-resume measurement (issue 32): a process of its own, compiled to plain
 * JS (tsconfig.bench-bot.json, no tsx), that does nothing but call the bot's `/api/resume` one call
 * at a time over one keep-alive socket and time each call. Measured in the bench process, the figure
 * held the bench's own work (its embedded forge, its HTTP client's allocations and GC) beside the
 * bot's on two cores (docs/benchmarks.md, "Warm resume p99").
 *
 * Forked with an IPC channel and '{"urls":[…],"token":"…","warmup":1000,"requests":2000}' as its
 * argument: after the warm-up it sends "warm" and waits for "go" (the parent resets the forge's
 * request counter between), then sends every measured latency (ms) and the bodies of the first round
 * (one per URL), for the caller's correctness check, and exits.
 */
import { Agent, request } from "node:http";

interface Args {
  urls: string[];
  token: string;
  warmup: number;
  requests: number;
}

const args = JSON.parse(process.argv[2] ?? "{}") as Args;
const agent = new Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
const headers = { authorization: `Bearer ${args.token}` };

/** One call; `keep`: return the body (else its bytes are only drained, nothing is kept). */
function call(url: string, keep: boolean): Promise<{ ns: bigint; body: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request(url, { headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      if (keep) res.on("data", (c: Buffer) => chunks.push(c));
      else res.on("data", () => {});
      res.on("end", () => {
        const ns = process.hrtime.bigint() - t0;
        if ((res.statusCode ?? 0) !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
        else resolve({ ns, body: keep ? Buffer.concat(chunks).toString("utf8") : "" });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const n = args.urls.length;
for (let i = 0; i < args.warmup; i++) await call(args.urls[i % n] as string, false);
const go = new Promise<void>((resolve) => process.once("message", () => resolve()));
process.send?.("warm");
await go;
// Preallocated: the measured loop allocates nothing of its own beyond what node:http does per call.
const lat = new Float64Array(args.requests);
const bodies: string[] = [];
for (let i = 0; i < args.requests; i++) {
  const r = await call(args.urls[i % n] as string, i < n);
  lat[i] = Number(r.ns) / 1e6;
  if (i < n) bodies.push(r.body);
}
agent.destroy();
process.send?.({ latenciesMs: Array.from(lat), bodies }, () => process.disconnect());
