import type pg from "pg";
import type { Logger } from "pino";
import { type MsClock, systemMs } from "../../clock.ts";
import { type Fence, StaleLeaseError } from "../index.ts";
import { lockFence } from "./ops/lock-fence.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

export type StoreLogger = Pick<Logger, "warn" | "error" | "info">;

/**
 * What every port of the PostgreSQL store shares: the pool, the store's clock, and the three ways a call
 * runs its operations (src/bot-state/postgres/ops/): `guard` (one statement, errors mapped), `tx` (a
 * transaction) and `fenced` (a transaction begun only under the lease's current token). `available`
 * is the readiness the bot reports: false after a call failed for want of PostgreSQL, until one succeeds.
 */
export class StoreConnection {
  available = true;

  constructor(
    readonly pool: pg.Pool,
    readonly log: StoreLogger | undefined,
    private readonly clock: MsClock | undefined,
  ) {}

  /** The store's clock as a query parameter: null means PostgreSQL's own. */
  nowParam(): number | null {
    return this.clock ? this.clock() : null;
  }

  /** The store's clock, or the system's (delivery times, judged by this process). */
  nowMs(): number {
    return (this.clock ?? systemMs)();
  }

  /**
   * Run `fn` in a transaction that first locks the lease row (FOR SHARE: a
   * takeover's UPDATE waits for us) and checks the fence is current and live.
   */
  async fenced<T>(fence: Fence, fn: (c: pg.PoolClient, nowMs: number) => Promise<T>): Promise<T> {
    return this.tx(async (c) => {
      const row = await lockFence(c, fence, this.nowParam());
      if (!row || row.token !== fence.token || !row.live) throw new StaleLeaseError(fence.name, fence.token, row ? row.token : null);
      return fn(c, row.nowMs);
    });
  }

  async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const c = await this.pool.connect();
      // A checked-out client whose connection drops emits "error" besides failing its query: without a
      // listener that would crash the process. The failed query is what reports it; the client is discarded.
      let lost: Error | undefined;
      const onError = (e: Error) => (lost = e);
      c.on("error", onError);
      try {
        await c.query("BEGIN");
        const out = await fn(c);
        await c.query("COMMIT");
        return out;
      } catch (e) {
        if (!lost) await c.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        c.off("error", onError);
        c.release(lost);
      }
    });
  }

  /** Connection and server errors become StoreUnavailableError; StaleLeaseError passes through. */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn();
      if (!this.available) this.log?.info("PostgreSQL answers again");
      this.available = true;
      return out;
    } catch (e) {
      if (e instanceof StaleLeaseError) throw e;
      if (this.available) this.log?.error({ err: e }, "the shared store is unavailable: not ready, deliveries answered 503 until it answers again");
      this.available = false;
      if (e instanceof StoreUnavailableError) throw e;
      throw new StoreUnavailableError(`PostgreSQL store: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
}
