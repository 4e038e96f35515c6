import type { Logger } from "pino";
import type { ChangeListener, FeedCursor, ReplicaStore } from "../../bot-state/index.ts";
import { ChangesUnheardError, StaleLeaseError } from "../../bot-state/index.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import type { IssueLease } from "./issue-lease.ts";
import type { WatchedIssue } from "../tracker-ports.ts";

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
 * - the change feed: fold into each tracker what the other replicas stored, so
 *   every replica serves /api/* from the shared state; woken by the store's
 *   change notifications (PostgreSQL LISTEN/NOTIFY) the moment another replica
 *   commits, and every feedIntervalMs besides, the fallback when a notification
 *   is lost or cannot be heard (a transaction-pooling proxy);
 * - lease spreading: a replica takes free leases only up to its share of the
 *   issues over the live replicas (heartbeats), and gives one back per round
 *   when it holds more, so issues spread over replicas;
 * - fenced writes: each Forgejo write is begun only while the lease's token is
 *   current and is logged with it (the chaos test counts overlaps from the log).
 */
export class ReplicaCoordinator {
  private readonly cursors = new Map<WatchedIssue, FeedCursor>();
  private trackers: () => WatchedIssue[] = () => [];
  private timers: NodeJS.Timeout[] = [];
  private liveReplicas = 1;
  private stopped = false;
  /** The LISTEN for other replicas' changes, while it stands. */
  private listener: ChangeListener | null = null;
  /** "unheard": notifications do not come back on this database URL (a transaction-pooling proxy): the poll alone, for good. */
  private listening: "no" | "trying" | "yes" | "unheard" = "no";
  /** Trackers with a feed read queued behind the one under way (a burst of notifications costs one read). */
  private readonly queued = new Set<WatchedIssue>();

  constructor(
    readonly store: ReplicaStore,
    private readonly o: ReplicaCoordinatorOptions,
  ) {}

  get replicaId(): string {
    return this.o.replicaId;
  }

  attach(trackers: () => WatchedIssue[]): void {
    this.trackers = trackers;
  }

  /** Before a tracker first reads the store: its feed starts here, so nothing committed after that read is missed. */
  async beforeStart(t: WatchedIssue): Promise<void> {
    this.cursors.set(t, await this.store.feedCursor());
  }

  /** Issues this replica leads now. */
  held(): WatchedIssue[] {
    return this.trackers().filter((t) => t.lease.current() !== null);
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
  async readThrough(t: WatchedIssue): Promise<void> {
    await this.followOne(t);
  }

  /** One tracker's feed, one read at a time (the loop and a read-through share the cursor). */
  private readonly following = new Map<WatchedIssue, Promise<void>>();
  private followOne(t: WatchedIssue): Promise<void> {
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

  /** Whether this replica is woken by change notifications now (else it polls the feed only). */
  get wokenByNotify(): boolean {
    return this.listening === "yes";
  }

  /** The LISTEN attempt under way, if any (start-up, a heartbeat after a drop). */
  private attempt: Promise<void> = Promise.resolve();

  /** Once the LISTEN attempt under way has settled: whether notifications wake this replica. */
  async listeningSettled(): Promise<boolean> {
    await this.attempt;
    return this.wokenByNotify;
  }

  /**
   * A change to this issue was committed: read its feed now. A read queued behind the one under way
   * already covers whatever commits before it starts, so a burst costs at most two reads.
   *
   * Not when this process committed it (`fromSelf`) and leads the issue: the leader's comment rows
   * are written by its tracker's apply, which folds them itself, so reading them back was a wasted
   * round trip per write (0.45 statements a delivery, docs/benchmarks.md). A same-process write the
   * tracker did not fold comes from a path that holds the issue's lease in place of the tracker (the
   * late carry of a closed predecessor, carryLateFrom), so the tracker does not lead it then and the
   * change is read. Skipped changes are read by the feed poll anyway (the cursor is not moved here).
   */
  private wake(issue: string, fromSelf = false): void {
    for (const t of this.trackers()) {
      if (t.storeKey !== issue || this.queued.has(t)) continue;
      if (fromSelf && t.lease.current() !== null) continue;
      this.queued.add(t);
      const prev = this.following.get(t) ?? Promise.resolve();
      void prev
        .then(() => {
          this.queued.delete(t);
          return this.stopped ? undefined : this.followOne(t);
        })
        .catch((e: unknown) => this.o.logger.warn({ err: e, issue }, "reading the shared store after a change notification failed; the feed poll tries again"));
    }
  }

  /**
   * LISTEN for other replicas' changes; on failure the feed poll goes on alone and the heartbeat
   * round tries again (except where notifications are never heard: said once, then the poll only).
   * Once listening, one feed round folds whatever committed while no one listened.
   */
  private listen(): void {
    if (this.stopped || this.listening !== "no") return;
    this.listening = "trying";
    this.attempt = this.subscribe();
  }

  private async subscribe(): Promise<void> {
    try {
      const l = await this.store.listenChanges(
        (issue, fromSelf) => this.wake(issue, fromSelf),
        (e) => {
          this.listener = null;
          if (this.stopped) return;
          this.listening = "no";
          this.o.logger.warn({ err: e }, "lost the PostgreSQL LISTEN connection: followers fall back to the feed poll until it is back");
        },
      );
      if (this.stopped) return void (await l.close());
      this.listener = l;
      this.listening = "yes";
      this.o.logger.info("woken by PostgreSQL notifications: other replicas' changes are folded as they commit");
    } catch (e) {
      if (e instanceof ChangesUnheardError) {
        this.listening = "unheard";
        this.o.logger.warn(
          { err: e, feedIntervalMs: this.o.feedIntervalMs },
          "PostgreSQL notifications do not arrive on this database URL (a transaction-pooling proxy such as pgbouncer in transaction mode?): followers fold other replicas' changes only every CHECKPOST_FEED_INTERVAL_MS; point CHECKPOST_DATABASE_URL at PostgreSQL or a session-pooling proxy to fold them at once",
        );
        return;
      }
      if (this.listening === "trying") this.listening = "no";
      this.o.logger.warn({ err: e }, "could not LISTEN for changes; the feed poll goes on and the next heartbeat tries again");
      return;
    }
    await this.followFeed().catch((e: unknown) => this.o.logger.warn({ err: e }, "following the shared store failed; will try again"));
  }

  /** Heartbeat, count live replicas, give back one lease above the share. */
  async balance(): Promise<void> {
    this.listen();
    this.liveReplicas = await this.store.heartbeat(this.o.replicaId, this.o.leaseTtlMs);
    // Issues led elsewhere: a rollover there is seen here only through the store (when polling, nothing else tells).
    for (const t of this.trackers()) {
      if (t.lease.current() !== null) continue;
      const next = t.successor;
      if (next === undefined || !this.trackers().some((x) => x.repo.owner === t.repo.owner && x.repo.repo === t.repo.repo && x.issue === next)) await t.followRollover();
    }
    const held = this.held().filter((t) => t.successor === undefined);
    if (held.length > this.share()) {
      const give = held[held.length - 1] as WatchedIssue;
      await give.lease.release();
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
    this.listen();
    loop(this.o.feedIntervalMs, "following the shared store", () => this.followFeed());
    loop(Math.max(100, Math.floor(this.o.leaseTtlMs / 3)), "replica heartbeat", () => this.balance());
  }

  /** Stop the loops and leave the live set, so the others' share of leases grows at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.listener?.close();
    this.listener = null;
    await this.store.forgetReplica(this.o.replicaId).catch((e: unknown) => this.o.logger.warn({ err: e }, "could not leave the live replicas; the heartbeat runs out by itself"));
  }
}
