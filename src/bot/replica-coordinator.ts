import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { PostgresProjectionStore, FeedCursor } from "../postgres-store/postgres-projection-store.ts";
import { StoreUnavailableError } from "../postgres-store/store-unavailable-error.ts";
import { StaleLeaseError, issueKey } from "../projection-store/index.ts";
import type { Lease } from "../projection-store/index.ts";
import type { DatabaseConfig } from "./bot-config.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import type { SessionTracker } from "./session-tracker.ts";
import type { TrackerSync } from "./tracker-sync.ts";

/** A deliveries' store call that takes longer fails: Probot would otherwise answer 202 at 9 s, acknowledging what is not stored. */
const DELIVERY_DEADLINE_MS = 5_000;

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`the shared store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

interface Held {
  lease: Lease;
  /** Local time after which we no longer act on this lease (the store's expiry, conservatively). */
  deadline: number;
}

/**
 * One replica's part in a scaled-out bot (docs/scale-out.md). Every replica
 * stores what it learns in the shared PostgreSQL store before folding it, and
 * folds what the others stored from the change feed every feedIntervalMs.
 * Per session issue, one replica holds the lease: it alone polls and
 * reconciles Forgejo and writes there (dashboard, alerts), every write fenced
 * by the lease's token. Leases are renewed every ttl/3 and spread: a replica
 * takes free leases only up to its share of issues over live replicas, and
 * gives one back per round when it holds more than its share.
 */
export class ReplicaCoordinator {
  private readonly held = new Map<string, Held>();
  private readonly cursors = new Map<string, FeedCursor>();
  private trackers: () => SessionTracker[] = () => [];
  private onLead: (t: SessionTracker) => Promise<void> = async () => undefined;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  /** False after a store call failed, until one succeeds again (readiness). */
  available = true;

  constructor(
    readonly store: PostgresProjectionStore,
    private readonly o: DatabaseConfig & { logger: Logger; metrics: BotMetrics },
  ) {
    o.metrics.storeUp.set(1);
  }

  get replicaId(): string {
    return this.o.replicaId;
  }

  /** Which trackers exist, and what to do on becoming an issue's leader (catch up with Forgejo, write the dashboard). */
  attach(trackers: () => SessionTracker[], onLead: (t: SessionTracker) => Promise<void>): void {
    this.trackers = trackers;
    this.onLead = onLead;
  }

  leads(key: string): boolean {
    const h = this.held.get(key);
    return h !== undefined && Date.now() < h.deadline;
  }

  leasesHeld(): Lease[] {
    return [...this.held.values()].map((h) => h.lease);
  }

  /** The TrackerSync of one issue. */
  syncFor(repo: { owner: string; repo: string }, issue: number): TrackerSync {
    const key = issueKey(repo, issue);
    return {
      store: async (events, deliveryId = null) => {
        if (events.length === 0) return [];
        const r = await this.track(withDeadline(this.store.applyDelivery(key, deliveryId, events), DELIVERY_DEADLINE_MS));
        return r.changed;
      },
      liveIds: async () => (await this.track(this.store.comments(key))).filter((c) => !c.deleted).map((c) => c.id),
      leads: () => this.leads(key),
      leaderWrite: async (kind, write) => {
        const h = this.held.get(key);
        if (!h || Date.now() >= h.deadline) throw new StaleLeaseError(key, h?.lease.token ?? 0, null);
        try {
          return await this.store.fencedWrite(h.lease, kind, write);
        } catch (e) {
          if (e instanceof StaleLeaseError) this.lose(key, "fenced off");
          throw e;
        }
      },
      claimAlert: async (alertKey) => {
        const h = this.held.get(key);
        if (!h) return false;
        return this.track(this.store.recordAlert(h.lease, key, alertKey));
      },
    };
  }

  /**
   * First load of an issue on this replica: everything stored, from the feed.
   * An issue nobody stored yet is read whole from Forgejo (and stored) first.
   */
  async load(t: SessionTracker): Promise<void> {
    const key = issueKey(t.o.repo, t.o.issue);
    if ((await this.track(this.store.watermark(key))) === null) await t.reconcile();
    const { events, cursor } = await this.track(this.store.readChanges(key, null));
    t.apply(events);
    this.cursors.set(key, cursor);
  }

  /** Fold what other replicas stored since the last round. */
  async followFeed(): Promise<void> {
    for (const t of this.trackers()) {
      const key = issueKey(t.o.repo, t.o.issue);
      const cursor = this.cursors.get(key);
      if (cursor === undefined) continue; // not loaded yet
      const { events, cursor: next } = await this.track(this.store.readChanges(key, cursor));
      if (events.length) t.apply(events);
      this.cursors.set(key, next);
    }
  }

  /** One round of lease keeping: heartbeat, renew, take a fair share of free leases, give back surplus. */
  async tickLeases(): Promise<void> {
    const ttl = this.o.leaseTtlMs;
    const margin = Math.min(1_000, ttl / 5);
    const replicas = await this.track(this.store.heartbeat(this.o.replicaId, ttl));
    const trackers = this.trackers();
    const share = Math.max(1, Math.ceil(trackers.length / Math.max(1, replicas)));
    for (const [key, h] of [...this.held]) {
      const started = Date.now();
      const renewed = await this.track(this.store.renewLease(h.lease, ttl));
      if (renewed) this.held.set(key, { lease: renewed, deadline: started + ttl - margin });
      else this.lose(key, "expired");
    }
    // Rendezvous order: each replica prefers different issues, so free leases spread without talk.
    const score = (key: string) => createHash("sha1").update(`${key}\u0000${this.o.replicaId}`).digest("hex");
    const byPreference = [...trackers].map((t) => ({ t, key: issueKey(t.o.repo, t.o.issue) })).sort((a, b) => (score(a.key) < score(b.key) ? 1 : -1));
    for (const { t, key } of byPreference) {
      if (this.held.size >= share || this.stopped) break;
      if (this.held.has(key) || !this.cursors.has(key)) continue;
      const started = Date.now();
      const lease = await this.track(this.store.acquireLease(key, this.o.replicaId, ttl));
      if (!lease) continue;
      this.held.set(key, { lease, deadline: started + ttl - margin });
      this.o.metrics.leaseChanges.inc({ change: "acquired" });
      this.o.logger.info({ issue: key, token: lease.token }, "took the issue's lease: this replica now writes to it");
      await this.onLead(t).catch((e: unknown) => this.o.logger.warn({ err: e, issue: key }, "catching up as the new leader failed; the next poll retries"));
    }
    if (this.held.size > share) {
      const surplus = byPreference.filter(({ key }) => this.held.has(key)).pop();
      const h = surplus && this.held.get(surplus.key);
      if (surplus && h) {
        this.held.delete(surplus.key);
        await this.track(this.store.releaseLease(h.lease));
        this.o.metrics.leaseChanges.inc({ change: "released" });
        this.o.logger.info({ issue: surplus.key, token: h.lease.token, share }, "gave a lease back so leases spread over the replicas");
      }
    }
    this.o.metrics.leasesHeld.set(this.held.size);
  }

  /** Run the feed and lease loops until stop(). */
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
    loop(Math.max(100, Math.floor(this.o.leaseTtlMs / 3)), "lease round", () => this.tickLeases());
  }

  /** Stop the loops and give every lease back, so the others take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    for (const [key, h] of [...this.held]) {
      this.held.delete(key);
      await this.store.releaseLease(h.lease).catch(() => undefined);
    }
    await this.store.close();
  }

  private lose(key: string, why: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    this.o.metrics.leaseChanges.inc({ change: "lost" });
    this.o.logger.warn({ issue: key, token: h.lease.token, why }, "lost the issue's lease: another replica writes to it now");
  }

  /** Note whether the store answered (readiness, metrics). */
  private async track<T>(p: Promise<T>): Promise<T> {
    try {
      const v = await p;
      if (!this.available) this.o.logger.info("the shared store answers again: ready");
      this.available = true;
      this.o.metrics.storeUp.set(1);
      return v;
    } catch (e) {
      if (e instanceof StoreUnavailableError) {
        if (this.available) this.o.logger.error({ err: e }, "the shared store is unavailable: not ready, deliveries answered 503 until it is back");
        this.available = false;
        this.o.metrics.storeUp.set(0);
      }
      throw e;
    }
  }
}
