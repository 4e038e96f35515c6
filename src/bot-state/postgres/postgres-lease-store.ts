import type { LeaseStore } from "../index.ts";
import { acquireLease } from "./ops/acquire-lease.ts";
import { releaseLease } from "./ops/release-lease.ts";
import { renewLease } from "./ops/renew-lease.ts";
import { selectLease } from "./ops/select-lease.ts";
import type { StoreConnection } from "./store-connection.ts";

/**
 * The LeaseStore port on PostgreSQL: leases in a table with a fencing token; expiry is judged by
 * PostgreSQL's clock, the one clock all replicas share (or the store's, when a test gives one).
 */
export function postgresLeaseStore(db: StoreConnection): LeaseStore {
  return {
    acquireLease: (name, holder, ttlMs) => db.guard(() => acquireLease(db.pool, name, holder, ttlMs, db.nowParam())),
    renewLease: (lease, ttlMs) => db.guard(() => renewLease(db.pool, lease, ttlMs, db.nowParam())),
    releaseLease: (lease) => db.guard(() => releaseLease(db.pool, lease, db.nowParam())),
    peekLease: (name) => db.guard(() => selectLease(db.pool, name)),
    checkFence: (fence) => db.fenced(fence, async () => undefined),
  };
}
