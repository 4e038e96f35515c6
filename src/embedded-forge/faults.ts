/** Seeded fault injection (latency, bandwidth, 5xx, 429, resets, commit-then-drop) with counters. */
import { mulberry32 } from "./prng.ts";
import type { FaultKind, FaultOptions } from "./types.ts";

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

export function emptyFaultCounts(): Record<FaultKind, number> {
  return { error500: 0, error502: 0, error503: 0, rateLimit: 0, reset: 0, commitThenDrop: 0 };
}

export class FaultController {
  private opts: FaultOptions;
  private rand: () => number;
  readonly counts: Record<FaultKind, number> = emptyFaultCounts();

  constructor(
    opts: FaultOptions | undefined,
    private seed: number,
  ) {
    this.opts = { ...(opts ?? {}) };
    this.rand = mulberry32(seed);
  }

  get options(): FaultOptions {
    return { ...this.opts };
  }

  /** Replace the fault options (the PRNG keeps its position). */
  set(opts: FaultOptions): void {
    this.opts = { ...opts };
  }

  /** No faults, and the PRNG restarts from the seed (optionally a new one). */
  reset(seed?: number): void {
    this.opts = {};
    if (seed !== undefined) this.seed = seed;
    this.rand = mulberry32(this.seed);
  }

  /** Is this request subject to faults (method and route filters)? */
  applies(method: string, routeId: string): boolean {
    const m = this.opts.match;
    if (m?.methods && m.methods.length > 0 && !m.methods.map((x) => x.toUpperCase()).includes(method)) return false;
    if (m?.routes && m.routes.length > 0 && !m.routes.includes(routeId)) return false;
    return true;
  }

  latencyMs(): number {
    return Math.max(0, this.opts.latencyMs ?? 0);
  }

  bandwidth(): number {
    return Math.max(0, this.opts.bandwidthBytesPerSec ?? 0);
  }

  retryAfterSec(): number {
    return Math.max(0, this.opts.retryAfterSec ?? 1);
  }

  /**
   * Pick the fault for one request. Exactly one PRNG draw per call whenever any rate is set (plus one
   * to choose among 500/502/503), so equal seeds and equal request sequences give equal faults.
   */
  decide(method: string): FaultKind | null {
    const o = this.opts;
    const reset = o.resetRate ?? 0;
    const error = o.errorRate ?? 0;
    const limit = o.rateLimitRate ?? 0;
    const drop = o.commitThenDropRate ?? 0;
    if (reset + error + limit + drop <= 0) return null;
    const r = this.rand();
    let kind: FaultKind | null = null;
    if (r < reset) kind = "reset";
    else if (r < reset + error) {
      const pick = Math.floor(this.rand() * 3);
      kind = pick === 0 ? "error500" : pick === 1 ? "error502" : "error503";
    } else if (r < reset + error + limit) kind = "rateLimit";
    else if (r < reset + error + limit + drop && WRITE_METHODS.has(method)) kind = "commitThenDrop";
    if (kind) this.counts[kind]++;
    return kind;
  }
}

export function statusOfFault(kind: FaultKind): number {
  return kind === "error500" ? 500 : kind === "error502" ? 502 : kind === "error503" ? 503 : 429;
}
