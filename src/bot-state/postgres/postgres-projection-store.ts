import pg from "pg";
import type { ChangeListener, CommentLog, EntryView, IssueBookkeeping, IssueKey, LeaseStore, ProjectionStore, ProjectionStoreOptions, ReplicaStore, CommandClaims } from "../index.ts";
import type { FeedCursor, WriteLogRow } from "../index.ts";
import { listenChanges } from "./listen-changes.ts";
import { migrate } from "./migrate.ts";
import { selectAppliedCounts } from "./ops/select-applied-counts.ts";
import { postgresCommentLog } from "./postgres-comment-log.ts";
import { postgresEntryView } from "./postgres-entry-view.ts";
import { postgresIssueBookkeeping } from "./postgres-issue-bookkeeping.ts";
import { postgresLeaseStore } from "./postgres-lease-store.ts";
import { type ReplicaFeed, postgresReplicaFeed } from "./postgres-replica-feed.ts";
import { StoreConnection, type StoreLogger } from "./store-connection.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

export interface PostgresStoreOptions extends ProjectionStoreOptions {
  /** postgres://user:password@host:port/database (CHECKPOST_DATABASE_URL). */
  url: string;
  /** Connections in this replica's pool. */
  poolSize?: number;
  logger?: StoreLogger;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

export type { FeedCursor, WriteLogRow };

/**
 * The ProjectionStore on PostgreSQL, shared by bot replicas. Every replica
 * writes what it learns (webhook, poll, reconcile) in one transaction,
 * idempotently by delivery id and by comment version; every replica folds the
 * issue's change feed (readChanges) into its in-memory projection. Leases live
 * in a table with a fencing token; expiry is judged by PostgreSQL's clock, the
 * one clock all replicas share. Schema: migrations.ts, applied at open.
 *
 * This class only assembles the ports, each in its own file (postgres-comment-log.ts,
 * postgres-entry-view.ts, postgres-lease-store.ts, postgres-issue-bookkeeping.ts,
 * postgres-replica-feed.ts, listen-changes.ts), which run one SQL operation per file (ops/).
 */
export class PostgresProjectionStore implements ProjectionStore, ReplicaStore {
  declare readonly applyDelivery: CommentLog["applyDelivery"];
  declare readonly comments: CommentLog["comments"];
  declare readonly commentCount: CommentLog["commentCount"];
  declare readonly watermark: CommentLog["watermark"];
  declare readonly clearIssue: CommentLog["clearIssue"];
  declare readonly issues: CommentLog["issues"];
  declare readonly pruneDeliveries: CommentLog["pruneDeliveries"];
  declare readonly putProjectionState: EntryView["putProjectionState"];
  declare readonly projectionState: EntryView["projectionState"];
  declare readonly putEntries: EntryView["putEntries"];
  declare readonly entries: EntryView["entries"];
  declare readonly entry: EntryView["entry"];
  declare readonly putResumeIndex: EntryView["putResumeIndex"];
  declare readonly resumeIndex: EntryView["resumeIndex"];
  declare readonly acquireLease: LeaseStore["acquireLease"];
  declare readonly renewLease: LeaseStore["renewLease"];
  declare readonly releaseLease: LeaseStore["releaseLease"];
  declare readonly peekLease: LeaseStore["peekLease"];
  declare readonly checkFence: LeaseStore["checkFence"];
  declare readonly recordAlert: IssueBookkeeping["recordAlert"];
  declare readonly hasAlert: IssueBookkeeping["hasAlert"];
  declare readonly issueMeta: IssueBookkeeping["issueMeta"];
  declare readonly updateIssueMeta: IssueBookkeeping["updateIssueMeta"];
  declare readonly claimCommand: CommandClaims["claimCommand"];
  declare readonly feedCursor: ReplicaFeed["feedCursor"];
  declare readonly readChanges: ReplicaFeed["readChanges"];
  declare readonly heartbeat: ReplicaFeed["heartbeat"];
  declare readonly forgetReplica: ReplicaFeed["forgetReplica"];
  declare readonly fencedWrite: ReplicaFeed["fencedWrite"];
  declare readonly writeLog: ReplicaFeed["writeLog"];
  declare readonly currentLease: ReplicaFeed["currentLease"];

  private constructor(
    private readonly db: StoreConnection,
    /** A connection of its own, outside the pool (LISTEN must stay on one session). */
    private readonly ownClient: () => pg.Client,
    /** The server process ids of this pool's connections: a notification from one of them is this process's own change. */
    private readonly ownPids: ReadonlySet<number>,
  ) {
    Object.assign(this, postgresCommentLog(db), postgresEntryView(db), postgresLeaseStore(db), postgresIssueBookkeeping(db), postgresReplicaFeed(db));
  }

  /** Connect and bring the schema up to date (see migrate). */
  static async open(o: PostgresStoreOptions): Promise<PostgresProjectionStore> {
    const pool = new pg.Pool({
      connectionString: o.url,
      max: o.poolSize ?? 5,
      application_name: o.applicationName ?? "checkpost",
      connectionTimeoutMillis: 5_000,
      // A query that hangs (network partition) must fail, not hold a delivery forever.
      query_timeout: 15_000,
    });
    const ownPids = new Set<number>();
    pool.on("connect", (c) => {
      const pid = backendPid(c);
      if (pid !== undefined) ownPids.add(pid);
    });
    pool.on("remove", (c) => {
      const pid = backendPid(c);
      if (pid !== undefined) ownPids.delete(pid);
    });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on("error", (e) => o.logger?.warn({ err: e }, "PostgreSQL connection lost; will reconnect"));
    try {
      const c = await pool.connect();
      const onError = () => undefined; // reported by the failing query (see StoreConnection.tx)
      c.on("error", onError);
      try {
        await migrate(c);
      } finally {
        c.off("error", onError);
        c.release();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw new StoreUnavailableError(`cannot open the PostgreSQL store (check CHECKPOST_DATABASE_URL and that the server is up): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const clientConfig = { connectionString: o.url, application_name: `${o.applicationName ?? "checkpost"} listen`, connectionTimeoutMillis: 5_000 };
    return new PostgresProjectionStore(new StoreConnection(pool, o.logger, o.now), () => new pg.Client(clientConfig), ownPids);
  }

  /** False after a call failed for want of PostgreSQL, until one succeeds again (readiness). */
  get available(): boolean {
    return this.db.available;
  }

  /** True when PostgreSQL answers now (readiness). */
  async ping(): Promise<boolean> {
    try {
      await this.db.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.db.pool.end();
  }

  /** See listen-changes.ts: rejects with ChangesUnheardError when a probe NOTIFY does not come back within `probeMs`. */
  listenChanges(onChange: (issue: IssueKey, fromSelf: boolean) => void, onLost: (e: Error) => void, probeMs = 2_000): Promise<ChangeListener> {
    return listenChanges(this.ownClient(), this.db.pool, onChange, onLost, probeMs, this.ownPids);
  }

  /** Times each comment's row changed, by id (the chaos test checks none changed more than its versions). */
  async appliedCounts(issue: IssueKey): Promise<Map<number, number>> {
    return this.db.guard(() => selectAppliedCounts(this.db.pool, issue));
  }
}

/**
 * The server process id of a connected client (pg sets `processID` from the server's BackendKeyData;
 * @types/pg does not declare it). Behind a proxy it is the proxy's id, which a notification never
 * carries: such changes are then never taken for this process's own (the safe side).
 */
function backendPid(c: pg.PoolClient): number | undefined {
  const pid = (c as unknown as { processID?: unknown }).processID;
  return typeof pid === "number" ? pid : undefined;
}
