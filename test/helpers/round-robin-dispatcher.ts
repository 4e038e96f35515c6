import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface DispatcherOptions {
  /** Base URLs of the replicas' webhook endpoints (full URL with path). */
  backends: () => string[];
  /**
   * "sync": answer Forgejo with the replica's answer (after retrying the others
   * on failure), as a plain load balancer. "queue": accept at once and deliver
   * from a queue until some replica acknowledges, out of order and with
   * duplicates, as Forgejo's delivery log plus its redelivery would over time.
   */
  mode: "sync" | "queue";
  /** queue mode: share of deliveries also sent a second time (same delivery id) to another replica. */
  duplicateRate?: number;
  /** queue mode: each delivery waits up to this long first, so later ones overtake it. */
  maxDelayMs?: number;
  /** Deterministic randomness. */
  random?: () => number;
}

export interface DispatcherStats {
  received: number;
  /** Deliveries some replica answered 2xx. */
  acknowledged: number;
  /** Attempts that failed (connection refused or reset, 5xx) and were sent again. */
  retried: number;
  /** Extra copies sent on purpose. */
  duplicates: number;
  /** Answers by status. */
  statuses: Record<string, number>;
}

interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

const HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

function forwardable(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (!HOP.has(k) && typeof v === "string") out[k] = v;
  return out;
}

/**
 * The load balancer in front of bot replicas in the replica tests and the
 * chaos suite: Forgejo's webhook points here, each delivery goes to one
 * replica, round-robin, and to the next one when that replica is dead.
 */
export class RoundRobinDispatcher {
  readonly stats: DispatcherStats = { received: 0, acknowledged: 0, retried: 0, duplicates: 0, statuses: {} };
  private next = 0;
  private pending = 0;
  private waiters: (() => void)[] = [];
  private server: Server | null = null;
  private closed = false;
  url = "";

  constructor(private readonly o: DispatcherOptions) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const d: Delivery = { headers: forwardable(req.headers), body: Buffer.concat(chunks) };
        this.stats.received++;
        if (this.o.mode === "sync") {
          void this.deliver(d, 50).then((status) => res.writeHead(status).end());
          return;
        }
        res.writeHead(200).end("queued");
        this.track(this.queued(d));
        if ((this.o.random ?? Math.random)() < (this.o.duplicateRate ?? 0)) {
          this.stats.duplicates++;
          this.track(this.queued(d, true));
        }
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Resolves when every queued delivery has been acknowledged by some replica. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  async close(): Promise<void> {
    this.closed = true;
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private track(p: Promise<unknown>): void {
    this.pending++;
    void p.finally(() => {
      if (--this.pending === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  private async queued(d: Delivery, duplicate = false): Promise<void> {
    const wait = Math.floor((this.o.random ?? Math.random)() * (this.o.maxDelayMs ?? 0) * (duplicate ? 2 : 1));
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const status = await this.deliver(d, Number.POSITIVE_INFINITY);
    if (status >= 200 && status < 300 && !duplicate) this.stats.acknowledged++;
  }

  /** Send to one replica after another until one answers 2xx (or 4xx: a real refusal), up to `tries` rounds. */
  private async deliver(d: Delivery, tries: number): Promise<number> {
    let last = 502;
    for (let attempt = 0; attempt < tries && !this.closed; attempt++) {
      const backends = this.o.backends();
      if (backends.length === 0) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const target = backends[this.next++ % backends.length] as string;
      try {
        const r = await fetch(target, { method: "POST", headers: d.headers, body: d.body, signal: AbortSignal.timeout(15_000) });
        await r.arrayBuffer();
        last = r.status;
      } catch {
        last = 502;
      }
      this.stats.statuses[last] = (this.stats.statuses[last] ?? 0) + 1;
      if (last < 500) return last;
      this.stats.retried++;
      await new Promise((r) => setTimeout(r, Math.min(200, 5 * (attempt + 1))));
    }
    return last;
  }
}
