import type { Logger } from "pino";
import type { FeedCursor, ReplicaStore } from "../bot-state/index.ts";
import { StaleLeaseError } from "../bot-state/index.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { IssueLease } from "./issue-lease.ts";
import type { SessionTracker } from "./session-tracker.ts";

export interface ReplicaCoordinatorOptions {
  replicaId: string;
  feedIntervalMs: number;
  leaseTtlMs: number;
  logger: Logger;
  metrics: BotMetrics;
}

/**
 * One replica's part in a scaled-out bot (docs/scale-out.md), beside the
 * trackers' own store-first writes and IssueLease:
 * - the change feed: every feedIntervalMs, fold into each tracker what the
 *   other replicas stored, so every replica serves /api/* from the shared state;
 * - lease spreading: a replica takes free leases only up to its share of the
 *   issues over the live replicas (heartbeats), and gives one back per round
 *   when it holds more, so issues spread over replicas;
 * - fenced writes: each Forgejo write is begun only while the lease's token is
 *   current and is logged with it (the chaos test counts overlaps from the log).
 */
export class ReplicaCoordinator {
  private readonly cursors = new Map<SessionTracker, FeedCursor>();
  private trackers: () => SessionTracker[] = () => [];
  private timers: NodeJS.Timeout[] = [];
  private liveReplicas = 1;
  private stopped = false;

  constructor(
    readonly store: ReplicaStore,
    private readonly o: ReplicaCoordinatorOptions,
  ) {}

  get replicaId(): string {
    return this.o.replicaId;
  }

  attach(trackers: () => SessionTracker[]): void {
    this.trackers = trackers;
  }

  /** Before a tracker first reads the store: its feed starts here, so nothing committed after that read is missed. */
  async beforeStart(t: SessionTracker): Promise<void> {
    this.cursors.set(t, await this.store.feedCursor());
  }

  /** Issues this replica leads now. */
  held(): SessionTracker[] {
    return this.trackers().filter((t) => t.o.lease.current() !== null);
  }

  /**
   * Open heads this replica leads. Issues that rolled over do not count toward the share: they
   * take no new saves (only a late carry), and counting them kept the leader of a rollover from
   * taking its own successor (at its share already), so the successor's first dashboard and resume
   * index waited for another replica to find it.
   */
  private heldOpen(): number {
    return this.held().filter((t) => t.successor === undefined).length;
  }

  /** This replica's fair share of leases: the open issues over the live replicas, rounded up. */
  share(): number {
    const open = this.trackers().filter((t) => t.successor === undefined).length;
    return Math.max(1, Math.ceil(open / Math.max(1, this.liveReplicas)));
  }

  mayTake(): boolean {
    return !this.stopped && this.heldOpen() < this.share();
  }

  async fencedWrite<T>(lease: IssueLease, holder: string, kind: string, write: () => Promise<T>): Promise<T> {
    const fence = lease.current();
    if (!fence) throw new StaleLeaseError(kind, 0, null);
    return this.store.fencedWrite({ ...fence, holder }, kind, write);
  }

  /** Fold what other replicas stored since the last round. */
  async followFeed(): Promise<void> {
    for (const t of this.trackers()) await this.followOne(t);
  }

  /**
   * Read-through for an answer (`/api/resume` on a replica that does not lead the issue): fold what
   * the leader stored up to now, so the follower answers what the leader would, not up to a feed
   * round later. One query of the shared store; nothing is asked of Forgejo.
   */
  async readThrough(t: SessionTracker): Promise<void> {
    await this.followOne(t);
  }

  /** One tracker's feed, one read at a time (the loop and a read-through share the cursor). */
  private readonly following = new Map<SessionTracker, Promise<void>>();
  private followOne(t: SessionTracker): Promise<void> {
    const prev = this.following.get(t) ?? Promise.resolve();
    const run = prev.then(async () => {
      const cursor = this.cursors.get(t);
      if (cursor === undefined) return;
      const { events, cursor: next } = await this.store.readChanges(t.storeKey, cursor);
      if (events.length) t.fold(events);
      this.cursors.set(t, next);
    });
    const settled = run.catch(() => {}); // the caller sees the error; the chain goes on
    this.following.set(t, settled);
    void settled.then(() => {
      if (this.following.get(t) === settled) this.following.delete(t);
    });
    return run;
  }

  /** Heartbeat, count live replicas, give back one lease above the share. */
  async balance(): Promise<void> {
    this.liveReplicas = await this.store.heartbeat(this.o.replicaId, this.o.leaseTtlMs);
    // Issues led elsewhere: a rollover there is seen here only through the store (when polling, nothing else tells).
    for (const t of this.trackers()) {
      if (t.o.lease.current() !== null) continue;
      const next = t.successor;
      if (next === undefined || !this.trackers().some((x) => x.o.repo.owner === t.o.repo.owner && x.o.repo.repo === t.o.repo.repo && x.o.issue === next)) await t.followRollover();
    }
    const held = this.held().filter((t) => t.successor === undefined);
    if (held.length > this.share()) {
      const give = held[held.length - 1] as SessionTracker;
      await give.o.lease.release();
      this.o.metrics.leaseChanges.inc({ change: "released" });
      this.o.logger.info({ issue: give.storeKey, share: this.share(), replicas: this.liveReplicas }, "gave a lease back so leases spread over the replicas");
    }
    this.o.metrics.leasesHeld.set(this.held().length);
  }

  start(): void {
    const loop = (everyMs: number, what: string, fn: () => Promise<void>) => {
      let busy = false;
      const h = setInterval(() => {
        if (busy || this.stopped) return;
        busy = true;
        fn()
          .catch((e: unknown) => this.o.logger.warn({ err: e }, `${what} failed; will try again`))
          .finally(() => (busy = false));
      }, everyMs);
      h.unref();
      this.timers.push(h);
    };
    loop(this.o.feedIntervalMs, "following the shared store", () => this.followFeed());
    loop(Math.max(100, Math.floor(this.o.leaseTtlMs / 3)), "replica heartbeat", () => this.balance());
  }

  /** Stop the loops and leave the live set, so the others' share of leases grows at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.store.forgetReplica(this.o.replicaId).catch((e: unknown) => this.o.logger.warn({ err: e }, "could not leave the live replicas; the heartbeat runs out by itself"));
  }
}
