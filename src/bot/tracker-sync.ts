import type { CommentEvent } from "../projection/index.ts";

/**
 * How a tracker shares its issue with other replicas (a scaled-out bot, see
 * ReplicaCoordinator). Without it the tracker is the process's only copy.
 */
export interface TrackerSync {
  /**
   * Store events in the shared store first; resolves to those that changed it
   * (fold only these: the rest were stored by someone and come by the feed).
   * Rejects when the store is unavailable: then nothing may be acknowledged.
   */
  store(events: CommentEvent[], deliveryId?: string | null): Promise<CommentEvent[]>;
  /** Ids the shared store holds as live comments of this issue (reconcile's deletion half). */
  liveIds(): Promise<number[]>;
  /** Whether this replica holds the lease now (it alone polls Forgejo and writes to it). */
  leads(): boolean;
  /**
   * Run one write to Forgejo as the leader, fenced by the lease's
   * token: rejects (StaleLeaseError) when the lease is no longer ours.
   */
  leaderWrite<T>(kind: string, write: () => Promise<T>): Promise<T>;
  /** Record an alert as posted by the leader; false when some replica already posted it. */
  claimAlert(alertKey: string): Promise<boolean>;
}
