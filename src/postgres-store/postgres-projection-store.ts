import pg from "pg";
import type { Logger } from "pino";
import { bodyHash } from "../projection/body-hash.ts";
import type { CommentEvent, CommentRecord } from "../projection/index.ts";
import { FencedOffError } from "./fenced-off-error.ts";
import type { Lease } from "./lease.ts";
import { migrate } from "./migrate.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections in this replica's pool. */
  poolSize?: number;
  logger?: Pick<Logger, "warn" | "error" | "info">;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

/** Where a replica is in an issue's change feed (opaque). */
export type FeedCursor = string;

export interface DeliveryResult {
  /** This delivery id was handled before (here or on another replica): nothing was done. */
  duplicate: boolean;
  /** The events that changed what is stored (a stale or repeated version changes nothing). */
  stored: CommentEvent[];
}

interface CommentRow {
  comment_id: string;
  author: string;
  body: string;
  created_at: string;
  updated_at: string;
  html_url: string | null;
  deleted: boolean;
  xid: string;
}

const PAGE = 2_000;

function toEvent(r: CommentRow): CommentEvent {
  const id = Number(r.comment_id);
  if (r.deleted) return { type: "delete", commentId: id };
  const comment: CommentRecord = { id, author: r.author, body: r.body, createdAt: r.created_at, updatedAt: r.updated_at, ...(r.html_url !== null ? { htmlUrl: r.html_url } : {}) };
  return { type: "upsert", comment };
}

/**
 * The shared store of a scaled-out bot. Every replica writes the comments it
 * learns (webhook, poll, reconcile) here inside a transaction, idempotently by
 * delivery id and by comment version; every replica folds the issue's change
 * feed into its in-memory projection. One replica per issue holds its lease
 * and alone writes to Forgejo, each write fenced by the lease's token.
 */
export class PostgresProjectionStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly log: PostgresStoreOptions["logger"],
  ) {}

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
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on("error", (e) => o.logger?.warn({ err: e }, "PostgreSQL connection lost; will reconnect"));
    const store = new PostgresProjectionStore(pool, o.logger);
    try {
      const c = await pool.connect();
      try {
        await migrate(c);
      } finally {
        c.release();
      }
    } catch (e) {
      await pool.end();
      throw new StoreUnavailableError(`cannot open the PostgreSQL store (CHECKPOST_DATABASE_URL): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return store;
  }

  /** True when PostgreSQL answers now (readiness). */
  async ping(): Promise<boolean> {
    try {
      await this.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * Store one webhook delivery's events, once. The delivery id and the comment
   * versions are written in one transaction: a delivery seen before (on any
   * replica) changes nothing, and a comment version older than or equal to the
   * stored one changes nothing either. Throws StoreUnavailableError when
   * nothing could be stored (the caller must not acknowledge the delivery).
   */
  async recordDelivery(deliveryId: string | null, issueKey: string, events: readonly CommentEvent[]): Promise<DeliveryResult> {
    return this.tx(async (c) => {
      if (deliveryId !== null) {
        const r = await c.query("INSERT INTO checkpost_deliveries (delivery_id) VALUES ($1) ON CONFLICT DO NOTHING", [deliveryId]);
        if (r.rowCount === 0) return { duplicate: true, stored: [] };
      }
      return { duplicate: false, stored: await this.upsert(c, issueKey, events) };
    });
  }

  /** Store comments read from Forgejo (poll, reconcile): idempotent by version. Returns what changed. */
  async storeComments(issueKey: string, events: readonly CommentEvent[]): Promise<CommentEvent[]> {
    if (events.length === 0) return [];
    return this.tx((c) => this.upsert(c, issueKey, events));
  }

  private async upsert(c: pg.PoolClient, issueKey: string, events: readonly CommentEvent[]): Promise<CommentEvent[]> {
    const stored: CommentEvent[] = [];
    // One order for every transaction, so two replicas storing overlapping lists never deadlock.
    const ordered = [...events].sort((a, b) => (a.type === "delete" ? a.commentId : a.comment.id) - (b.type === "delete" ? b.commentId : b.comment.id));
    for (const e of ordered) {
      if (e.type === "delete") {
        // A delete may arrive before the create it undoes (reordering): keep a tombstone row.
        const r = await c.query(
          `INSERT INTO checkpost_comments AS t (issue_key, comment_id, author, body, created_at, updated_at, updated_ms, body_hash, deleted)
           VALUES ($1, $2, '', '', '', '', 0, '', true)
           ON CONFLICT (issue_key, comment_id) DO UPDATE SET deleted = true, applied = t.applied + 1, xid = pg_current_xact_id()
           WHERE NOT t.deleted`,
          [issueKey, e.commentId],
        );
        if (r.rowCount) stored.push(e);
        continue;
      }
      const m = e.comment;
      const updatedMs = Date.parse(m.updatedAt);
      // Same order as the projection's compareVersions: newer updated time, then body hash.
      const r = await c.query(
        `INSERT INTO checkpost_comments AS t (issue_key, comment_id, author, body, created_at, updated_at, updated_ms, body_hash, html_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (issue_key, comment_id) DO UPDATE
           SET author = excluded.author, body = excluded.body, created_at = excluded.created_at, updated_at = excluded.updated_at,
               updated_ms = excluded.updated_ms, body_hash = excluded.body_hash, html_url = excluded.html_url,
               applied = t.applied + 1, xid = pg_current_xact_id()
           WHERE NOT t.deleted AND (excluded.updated_ms, excluded.body_hash) > (t.updated_ms, t.body_hash)`,
        [issueKey, m.id, m.author, m.body, m.createdAt, m.updatedAt, updatedMs, bodyHash(m.body), m.htmlUrl ?? null],
      );
      if (r.rowCount) stored.push(e);
    }
    return stored;
  }

  /**
   * What changed on an issue since `cursor` (null: everything), as projection
   * events, and the cursor to pass next time. Rows are found by the id of the
   * transaction that wrote them; the next cursor is the oldest transaction
   * still running when this read began, so a slow transaction that commits
   * later is still seen (some rows may come twice; folding is idempotent).
   */
  async readChanges(issueKey: string, cursor: FeedCursor | null): Promise<{ events: CommentEvent[]; cursor: FeedCursor }> {
    return this.guard(async () => {
      const xmin = (await this.pool.query<{ x: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x")).rows[0]?.x ?? "0";
      const events: CommentEvent[] = [];
      let fromXid = cursor ?? "0";
      let fromId = -1;
      for (;;) {
        const rows = (
          await this.pool.query<CommentRow>(
            `SELECT comment_id, author, body, created_at, updated_at, html_url, deleted, xid::text AS xid
             FROM checkpost_comments
             WHERE issue_key = $1 AND (xid > $2::xid8 OR (xid = $2::xid8 AND comment_id > $3))
             ORDER BY xid, comment_id LIMIT ${PAGE}`,
            [issueKey, fromXid, fromId],
          )
        ).rows;
        for (const r of rows) events.push(toEvent(r));
        if (rows.length < PAGE) break;
        const last = rows[rows.length - 1] as CommentRow;
        fromXid = last.xid;
        fromId = Number(last.comment_id);
      }
      return { events, cursor: xmin };
    });
  }

  /** Every stored comment of an issue (a rebuild's input), ordered by id. */
  async readAll(issueKey: string): Promise<CommentEvent[]> {
    return this.guard(async () => {
      const rows = (
        await this.pool.query<CommentRow>(
          "SELECT comment_id, author, body, created_at, updated_at, html_url, deleted, '' AS xid FROM checkpost_comments WHERE issue_key = $1 ORDER BY comment_id",
          [issueKey],
        )
      ).rows;
      return rows.map(toEvent);
    });
  }

  /** Times a new version of each comment was stored, keyed by id (the chaos test checks each is 1). */
  async appliedCounts(issueKey: string): Promise<Map<number, number>> {
    const rows = (await this.pool.query<{ comment_id: string; applied: number }>("SELECT comment_id, applied FROM checkpost_comments WHERE issue_key = $1", [issueKey])).rows;
    return new Map(rows.map((r) => [Number(r.comment_id), r.applied]));
  }

  // ---- leases -------------------------------------------------------------

  /**
   * Take an issue's lease if it is free or expired (by PostgreSQL's clock, the
   * one clock every replica shares). The fencing token grows by one at every
   * acquisition. Null when another holder's lease is still live.
   */
  async acquireLease(issueKey: string, holder: string, ttlMs: number): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.pool.query<{ token: string; expires_at: Date }>(
        `INSERT INTO checkpost_leases AS l (issue_key, holder, token, expires_at)
         VALUES ($1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (issue_key) DO UPDATE
           SET holder = excluded.holder, token = l.token + 1, expires_at = excluded.expires_at, acquired_at = clock_timestamp()
           WHERE l.expires_at <= clock_timestamp()
         RETURNING token::text, expires_at`,
        [issueKey, holder, ttlMs],
      );
      const row = r.rows[0];
      return row ? { issueKey, holder, token: Number(row.token), expiresAt: row.expires_at } : null;
    });
  }

  /** Extend a live lease; null when it expired or was taken over (then the holder must stop writing). */
  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.pool.query<{ expires_at: Date }>(
        `UPDATE checkpost_leases SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
         WHERE issue_key = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()
         RETURNING expires_at`,
        [lease.issueKey, lease.holder, lease.token, ttlMs],
      );
      const row = r.rows[0];
      return row ? { ...lease, expiresAt: row.expires_at } : null;
    });
  }

  /** Give a lease up (graceful shutdown, rebalancing): another replica may take it at once. */
  async releaseLease(lease: Lease): Promise<void> {
    await this.guard(() => this.pool.query("UPDATE checkpost_leases SET expires_at = clock_timestamp() WHERE issue_key = $1 AND holder = $2 AND token = $3", [lease.issueKey, lease.holder, lease.token]));
  }

  /** The current lease of an issue, whoever holds it (null: never leased). */
  async currentLease(issueKey: string): Promise<(Lease & { live: boolean }) | null> {
    return this.guard(async () => {
      const row = (
        await this.pool.query<{ holder: string; token: string; expires_at: Date; live: boolean }>(
          "SELECT holder, token::text, expires_at, expires_at > clock_timestamp() AS live FROM checkpost_leases WHERE issue_key = $1",
          [issueKey],
        )
      ).rows[0];
      return row ? { issueKey, holder: row.holder, token: Number(row.token), expiresAt: row.expires_at, live: row.live } : null;
    });
  }

  /** Note that a replica is alive; returns how many were seen within `withinMs` (itself included). */
  async heartbeat(replicaId: string, withinMs: number): Promise<number> {
    return this.guard(async () => {
      await this.pool.query(
        "INSERT INTO checkpost_replicas (replica_id, seen_at) VALUES ($1, clock_timestamp()) ON CONFLICT (replica_id) DO UPDATE SET seen_at = excluded.seen_at",
        [replicaId],
      );
      const r = await this.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM checkpost_replicas WHERE seen_at > clock_timestamp() - $1 * interval '1 millisecond'", [withinMs]);
      return r.rows[0]?.n ?? 1;
    });
  }

  /**
   * Run one write to Forgejo under a lease. The write is begun only if the
   * lease is the issue's current, unexpired one (checked and logged in one
   * statement that a takeover cannot interleave with), else FencedOffError and
   * `write` is not called. The log row is closed when the write returns.
   */
  async fencedWrite<T>(lease: Lease, kind: string, write: () => Promise<T>): Promise<T> {
    const begun = await this.guard(() =>
      this.pool.query<{ id: string }>(
        `INSERT INTO checkpost_write_log (issue_key, kind, holder, token)
         SELECT issue_key, $4, holder, token FROM checkpost_leases
         WHERE issue_key = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()
         FOR SHARE
         RETURNING id::text`,
        [lease.issueKey, lease.holder, lease.token, kind],
      ),
    );
    const id = begun.rows[0]?.id;
    if (id === undefined) throw new FencedOffError(lease.issueKey, lease.token);
    try {
      return await write();
    } finally {
      await this.pool.query("UPDATE checkpost_write_log SET ended_at = clock_timestamp() WHERE id = $1", [id]).catch((e: unknown) => this.log?.warn({ err: e }, "could not close a write-log row"));
    }
  }

  /** Leader-only state (poll watermark, alerts posted…), written only under the current lease. */
  async writeState(lease: Lease, name: string, value: unknown): Promise<void> {
    const r = await this.guard(() =>
      this.pool.query(
        `INSERT INTO checkpost_issue_state (issue_key, name, value, token)
         SELECT issue_key, $4, $5::jsonb, token FROM checkpost_leases
         WHERE issue_key = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()
         FOR SHARE
         ON CONFLICT (issue_key, name) DO UPDATE SET value = excluded.value, token = excluded.token
         WHERE checkpost_issue_state.token <= excluded.token`,
        [lease.issueKey, lease.holder, lease.token, name, JSON.stringify(value)],
      ),
    );
    if (!r.rowCount) throw new FencedOffError(lease.issueKey, lease.token);
  }

  async readState(issueKey: string, name: string): Promise<unknown> {
    const r = await this.guard(() => this.pool.query<{ value: unknown }>("SELECT value FROM checkpost_issue_state WHERE issue_key = $1 AND name = $2", [issueKey, name]));
    return r.rows[0]?.value ?? null;
  }

  /** Write intervals of an issue (for the chaos test's overlap count). */
  async writeLog(issueKey?: string): Promise<{ issueKey: string; kind: string; holder: string; token: number; startedAt: Date; endedAt: Date | null }[]> {
    const r = await this.pool.query<{ issue_key: string; kind: string; holder: string; token: string; started_at: Date; ended_at: Date | null }>(
      `SELECT issue_key, kind, holder, token::text, started_at, ended_at FROM checkpost_write_log ${issueKey ? "WHERE issue_key = $1" : ""} ORDER BY started_at`,
      issueKey ? [issueKey] : [],
    );
    return r.rows.map((x) => ({ issueKey: x.issue_key, kind: x.kind, holder: x.holder, token: Number(x.token), startedAt: x.started_at, endedAt: x.ended_at }));
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const c = await this.pool.connect();
      try {
        await c.query("BEGIN");
        const out = await fn(c);
        await c.query("COMMIT");
        return out;
      } catch (e) {
        await c.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        c.release();
      }
    });
  }

  /** Connection and server errors become StoreUnavailableError; FencedOffError passes through. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof FencedOffError || e instanceof StoreUnavailableError) throw e;
      throw new StoreUnavailableError(`PostgreSQL store: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
}
