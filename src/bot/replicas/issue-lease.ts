import type { Logger } from "pino";
import type { Fence, Lease, LeaseStore } from "../../bot-state/index.ts";
import { type MsClock, systemMs } from "../../clock.ts";

/**
 * This process's claim to be the one writer of a session issue, kept in the
 * ProjectionStore under the issue's key. `tick` (the lease timer, every third
 * of the TTL) renews a held lease or tries to take a free or expired one.
 * Forgejo cannot check a fencing token, so writes to it are preceded by a
 * store-side fence check (`holds`): a writer deposed between that check and
 * its request can make at most that one late write.
 */
export class IssueLease {
  private lease: Lease | null = null;

  constructor(
    private readonly o: {
      store: LeaseStore;
      name: string;
      holder: string;
      ttlMs: number;
      logger: Pick<Logger, "info" | "warn">;
      /** Called when this process becomes the writer (to write what is pending). */
      onAcquired?: () => void;
      /** Replicas: whether this process may take one more lease now (its fair share); default always. */
      mayTake?: () => boolean;
      /** The clock leases expire by: the store's (default: the system clock, as the stores'). */
      now?: MsClock;
    },
  ) {}

  /** The lease's name in the store (the issue's key). */
  get name(): string {
    return this.o.name;
  }

  /**
   * Whether the issue's writer looks gone: no lease, or one not renewed for
   * over half its TTL (renewals come every third). A follower then reads
   * Forgejo itself until a writer is back (reads are idempotent; only writes
   * need the lease), so a killed leader does not blind the replicas for a TTL.
   */
  async leaderLapsed(nowMs: number = (this.o.now ?? systemMs)()): Promise<boolean> {
    const l = await this.o.store.peekLease(this.o.name);
    return !l || l.expiresAtMs - nowMs < this.o.ttlMs / 2;
  }

  /** The fence to carry on leader writes, or null when not the writer. */
  current(): Fence | null {
    return this.lease && this.lease.expiresAtMs > (this.o.now ?? systemMs)() ? { name: this.lease.name, token: this.lease.token } : null;
  }

  /** Whether the store still names this process the writer (checked right before a Forgejo write). */
  async holds(): Promise<boolean> {
    const fence = this.current();
    if (!fence) return false;
    try {
      await this.o.store.checkFence(fence);
      return true;
    } catch {
      this.lost("the store names another writer");
      return false;
    }
  }

  async tick(): Promise<void> {
    if (this.lease) {
      const renewed = await this.o.store.renewLease(this.lease, this.o.ttlMs);
      if (renewed) this.lease = renewed;
      else this.lost("renewal refused");
      return;
    }
    if (this.o.mayTake && !this.o.mayTake()) return;
    const got = await this.o.store.acquireLease(this.o.name, this.o.holder, this.o.ttlMs);
    if (got) {
      this.lease = got;
      this.o.logger.info({ lease: got.name, token: got.token }, "this process is now the issue's writer");
      this.o.onAcquired?.();
    }
  }

  async release(): Promise<void> {
    if (this.lease) await this.o.store.releaseLease(this.lease);
    this.lease = null;
  }

  private lost(why: string): void {
    if (!this.lease) return;
    this.o.logger.warn({ lease: this.lease.name, token: this.lease.token, why }, "lease lost: another process is the issue's writer now");
    this.lease = null;
  }
}
