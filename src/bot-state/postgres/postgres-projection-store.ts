import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Logger } from "pino";
import { systemMs } from "../../clock.ts";
import type { ResumeIndex } from "../../dashboard/index.ts";
import type { AgentEntry, CommentEvent, CommentRecord } from "../../projection/index.ts";
import { IssueMetaSchema, StaleLeaseError } from "../index.ts";
import { advanceWatermarkAll } from "../advance-watermark-all.ts";
import { foldStoredComment } from "../fold-stored-comment.ts";
import type {
  ApplyResult,
  ChangeListener,
  CommentQuery,
  Fence,
  FeedCursor,
  IssueKey,
  IssueMeta,
  Lease,
  ProjectionStore,
  ProjectionStoreOptions,
  ReplicaStore,
  StoredComment,
  Watermark,
  WriteLogRow,
} from "../index.ts";
import { migrate } from "./migrate.ts";
import { ChangesUnheardError } from "../changes-unheard-error.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

export interface PostgresStoreOptions extends ProjectionStoreOptions {
  /** postgres://user:password@host:port/database (CHECKPOST_DATABASE_URL). */
  url: string;
  /** Connections in this replica's pool. */
  poolSize?: number;
  logger?: Pick<Logger, "warn" | "error" | "info">;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

export type { FeedCursor, WriteLogRow };

interface CommentRow {
  comment_id: string;
  author: string;
  created_at: string;
  updated_at: string;
  updated_ms: string | null;
  hash: string;
  multi: boolean;
  body: string | null;
  html_url: string | null;
  deleted: boolean;
}
interface FeedRow extends CommentRow {
  xid: string;
}

/** Migration 4's trigger notifies this channel with the issue key of every comment change. */
const CHANGES_CHANNEL = "checkpost_comments";
const COLS = "comment_id, author, created_at, updated_at, updated_ms, hash, multi, body, html_url, deleted";
const PAGE = 2_000;
/** Rows a multi-row INSERT carries (10 parameters each, far below PostgreSQL's 65,535). */
const BULK_INSERT_ROWS = 500;
const DELIVERY_DEADLINE_MS = 6_000;
/**
 * Merge a batch's watermark ($2 second, $3 ids) into the stored one: an older second changes nothing, the
 * same second adds its ids, a newer one replaces them (advanceWatermark's fold, in SQL).
 */
const WATERMARK_UPSERT = `INSERT INTO checkpost_watermarks AS w (issue_key, updated_at_second, ids_in_second) VALUES ($1, $2, $3::bigint[])
       ON CONFLICT (issue_key) DO UPDATE SET
         updated_at_second = excluded.updated_at_second,
         ids_in_second = CASE WHEN w.updated_at_second = excluded.updated_at_second
           THEN ARRAY(SELECT DISTINCT x FROM unnest(w.ids_in_second || excluded.ids_in_second) AS x ORDER BY x)
           ELSE excluded.ids_in_second END
       WHERE w.updated_at_second < excluded.updated_at_second
          OR (w.updated_at_second = excluded.updated_at_second AND NOT (w.ids_in_second @> excluded.ids_in_second))`;

/** Placeholder time of the earlier version replayed for an edited comment (see feedEvents). */
const EPOCH = "1970-01-01T00:00:00Z";

const WRITE_COLS = COLS;

/** A StoredComment as the values of WRITE_COLS. */
function rowValues(r: StoredComment): unknown[] {
  return [r.id, r.author, r.createdAt, r.updatedAt, r.updatedAt === "" ? null : Date.parse(r.updatedAt), r.hash, r.multi, r.body, r.htmlUrl ?? null, r.deleted];
}

function toStored(r: CommentRow): StoredComment {
  return {
    id: Number(r.comment_id),
    author: r.author,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.html_url !== null ? { htmlUrl: r.html_url } : {}),
    hash: r.hash,
    multi: r.multi,
    body: r.body,
    deleted: r.deleted,
  };
}

/**
 * Projection events that rebuild what a stored row means: its newest version
 * (body "" when not a protocol comment), then its delete. A row seen with more
 * than one body is replayed with a placeholder earlier version first, so the
 * fold marks it edited as the replica that saw both versions did.
 */
export function feedEvents(r: StoredComment): CommentEvent[] {
  const out: CommentEvent[] = [];
  if (r.updatedAt !== "") {
    const comment: CommentRecord = { id: r.id, author: r.author, body: r.body ?? "", createdAt: r.createdAt, updatedAt: r.updatedAt, ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) };
    if (r.multi) out.push({ type: "upsert", comment: { ...comment, body: "\u0000edited", updatedAt: EPOCH } });
    out.push({ type: "upsert", comment });
  }
  if (r.deleted) out.push({ type: "delete", commentId: r.id });
  return out;
}

/**
 * The ProjectionStore on PostgreSQL, shared by bot replicas. Every replica
 * writes what it learns (webhook, poll, reconcile) in one transaction,
 * idempotently by delivery id and by comment version; every replica folds the
 * issue's change feed (readChanges) into its in-memory projection. Leases live
 * in a table with a fencing token; expiry is judged by PostgreSQL's clock, the
 * one clock all replicas share. Schema: migrations.ts, applied at open.
 */
export class PostgresProjectionStore implements ProjectionStore, ReplicaStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly log: PostgresStoreOptions["logger"],
    private readonly clock: (() => number) | undefined,
    /** A connection of its own, outside the pool (LISTEN must stay on one session). */
    private readonly ownClient: () => pg.Client,
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
    try {
      const c = await pool.connect();
      const onError = () => undefined; // reported by the failing query (see tx)
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
    return new PostgresProjectionStore(pool, o.logger, o.now, () => new pg.Client(clientConfig));
  }

  /** The store's clock as a query parameter: null means PostgreSQL's own. */
  private nowParam(): number | null {
    return this.clock ? this.clock() : null;
  }

  /** False after a call failed for want of PostgreSQL, until one succeeds again (readiness). */
  available = true;

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

  // ---- comments -----------------------------------------------------------

  /**
   * A webhook delivery's is bounded by a deadline (DELIVERY_DEADLINE_MS): Probot answers a webhook 202
   * after 9 s whatever the handler does, which would acknowledge what was not
   * stored; a late failure is a 503 instead. (The transaction may still commit
   * after the deadline: the redelivery is then a duplicate, which is harmless.)
   */
  async applyDelivery(issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): Promise<ApplyResult> {
    // Reads (poll, reconcile: no delivery id) have no one waiting on an answer: no deadline.
    if (deliveryId === null) return this.applyDeliveryNow(issue, deliveryId, events);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(`PostgreSQL store: no answer within ${DELIVERY_DEADLINE_MS} ms`)), DELIVERY_DEADLINE_MS);
    });
    return Promise.race([this.applyDeliveryNow(issue, deliveryId, events), late]).finally(() => clearTimeout(timer));
  }

  private async applyDeliveryNow(issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): Promise<ApplyResult> {
    const only = events.length === 1 ? events[0] : undefined;
    if (deliveryId !== null && only?.type === "upsert" && (await this.insertNewComment(issue, deliveryId, only))) return { duplicate: false, changed: [only] };
    return this.tx(async (c) => {
      if (deliveryId !== null) {
        const r = await c.query("INSERT INTO checkpost_deliveries (delivery_id, received_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING", [deliveryId, (this.clock ?? systemMs)()]);
        if (r.rowCount === 0) return { duplicate: true, changed: [] };
      }
      const changedIds = new Set<CommentEvent>();
      // One lock order for every transaction, so two replicas storing overlapping lists never deadlock.
      const idOf = (e: CommentEvent) => (e.type === "delete" ? e.commentId : e.comment.id);
      const ordered = [...events].sort((a, b) => idOf(a) - idOf(b));
      await this.applyMany(c, issue, ordered, changedIds);
      await this.advanceWatermark(c, issue, events);
      return { duplicate: false, changed: events.filter((e) => changedIds.has(e)) };
    });
  }

  /**
   * A webhook's new comment, the usual delivery, in one statement and so one round trip (issue 32: it was
   * five, BEGIN, delivery, comment, watermark, COMMIT): the comment row is inserted unless the delivery id
   * was seen or the row exists, and only then are the delivery id and the watermark written, all in the
   * statement's own transaction. False when it inserted nothing (a redelivery, an edit, another replica's
   * row, a race on the same delivery): nothing was written, and the caller takes the general path.
   */
  private async insertNewComment(issue: IssueKey, deliveryId: string, e: CommentEvent & { type: "upsert" }): Promise<boolean> {
    const row = foldStoredComment(undefined, e);
    const w = advanceWatermarkAll(null, [{ id: e.comment.id, updatedAt: e.comment.updatedAt }]);
    if (!row || !w) return false;
    const r = await this.guard(() =>
      this.pool.query<{ inserted: number }>(
        `WITH c AS (
           INSERT INTO checkpost_comments (issue_key, ${WRITE_COLS})
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
           WHERE NOT EXISTS (SELECT 1 FROM checkpost_deliveries WHERE delivery_id = $12)
           ON CONFLICT DO NOTHING RETURNING comment_id
         ), d AS (
           INSERT INTO checkpost_deliveries (delivery_id, received_ms) SELECT $12, $13 FROM c ON CONFLICT DO NOTHING
         ), wm AS (
           ${WATERMARK_UPSERT.replace("VALUES ($1, $2, $3::bigint[])", "SELECT $1, $14, $15::bigint[] FROM c")}
         )
         SELECT count(*)::int AS inserted FROM c`,
        [issue, ...rowValues(row), deliveryId, (this.clock ?? systemMs)(), w.updatedAtSecond, w.idsInSecond],
      ),
    );
    return (r.rows[0]?.inserted ?? 0) > 0;
  }

  /**
   * Fold a batch of events (in comment id order) into their rows. A first read stores thousands of
   * comments: one row-locking SELECT for all of them and multi-row INSERTs (BULK_INSERT_ROWS a
   * statement) instead of a SELECT and an INSERT each (6.3 s at 10k comments, issue 22). A batch that
   * names a comment twice, or a row another replica inserted meanwhile, takes the one-by-one path.
   */
  private async applyMany(c: pg.PoolClient, issue: IssueKey, ordered: readonly CommentEvent[], changed: Set<CommentEvent>): Promise<void> {
    const ids = ordered.map((e) => (e.type === "delete" ? e.commentId : e.comment.id));
    if (ordered.length < 4 || new Set(ids).size !== ids.length) {
      for (const e of ordered) if (await this.applyOne(c, issue, e)) changed.add(e);
      return;
    }
    const held = new Map(
      (await c.query<CommentRow>(`SELECT ${COLS} FROM checkpost_comments WHERE issue_key = $1 AND comment_id = ANY($2::bigint[]) ORDER BY comment_id FOR UPDATE`, [issue, ids])).rows.map((r) => [
        Number(r.comment_id),
        r,
      ]),
    );
    const fresh: { e: CommentEvent; row: StoredComment }[] = [];
    for (const [i, e] of ordered.entries()) {
      const row = held.get(ids[i] as number);
      if (row) {
        if (await this.foldInto(c, issue, e, row)) changed.add(e);
        continue;
      }
      const first = foldStoredComment(undefined, e);
      if (first) fresh.push({ e, row: first });
    }
    for (let at = 0; at < fresh.length; at += BULK_INSERT_ROWS) {
      const chunk = fresh.slice(at, at + BULK_INSERT_ROWS);
      const args: unknown[] = [issue];
      const tuples = chunk.map(({ row }) => {
        const values = rowValues(row);
        const first = args.length + 1;
        args.push(...values);
        return `($1, ${values.map((_, k) => `$${first + k}`).join(", ")})`;
      });
      const r = await c.query<{ comment_id: string }>(`INSERT INTO checkpost_comments (issue_key, ${WRITE_COLS}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING RETURNING comment_id::text`, args);
      const inserted = new Set(r.rows.map((x) => Number(x.comment_id)));
      for (const { e, row } of chunk) {
        if (inserted.has(row.id)) changed.add(e);
        // Another replica inserted it meanwhile: fold onto its row, one by one.
        else if (await this.applyOne(c, issue, e)) changed.add(e);
      }
    }
  }

  /** Fold one event onto its locked row; true when the row changed. */
  private async foldInto(c: pg.PoolClient, issue: IssueKey, e: CommentEvent, row: CommentRow): Promise<boolean> {
    const next = foldStoredComment(toStored(row), e);
    if (!next) return false;
    await c.query(
      `UPDATE checkpost_comments SET (${WRITE_COLS}) = ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11), applied = applied + 1, xid = pg_current_xact_id()
       WHERE issue_key = $1 AND comment_id = $2`,
      [issue, ...rowValues(next)],
    );
    return true;
  }

  /**
   * Fold one event into its row under a row lock (foldStoredComment, the rule
   * the SQLite store uses too). True when the row changed.
   */
  private async applyOne(c: pg.PoolClient, issue: IssueKey, e: CommentEvent): Promise<boolean> {
    const id = e.type === "delete" ? e.commentId : e.comment.id;
    // A webhook's comment is almost always new: insert first (one round trip), and read and lock the row
    // only when it is already there (an edit, a redelivery, another replica's insert: ON CONFLICT waits
    // for that replica's transaction).
    const first = foldStoredComment(undefined, e);
    if (first) {
      const ins = await c.query(`INSERT INTO checkpost_comments (issue_key, ${WRITE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`, [issue, ...rowValues(first)]);
      if (ins.rowCount) return true;
    }
    const row = (await c.query<CommentRow>(`SELECT ${COLS} FROM checkpost_comments WHERE issue_key = $1 AND comment_id = $2 FOR UPDATE`, [issue, id])).rows[0];
    if (!row) {
      if (first) throw new Error(`comment ${id} vanished while being stored`);
      return false;
    }
    return this.foldInto(c, issue, e, row);
  }

  /** The newest updated second seen and the ids seen in it (advanceWatermark, as SQLite). */
  /**
   * One statement, no read first: the batch's own watermark (advanceWatermarkAll from nothing) merged
   * with the stored one in SQL, which is the same fold: an older batch second changes nothing, the same
   * second adds its ids, a newer one replaces them.
   */
  private async advanceWatermark(c: pg.PoolClient, issue: IssueKey, events: readonly CommentEvent[]): Promise<void> {
    const w = advanceWatermarkAll(
      null,
      events.flatMap((e) => (e.type === "upsert" ? [{ id: e.comment.id, updatedAt: e.comment.updatedAt }] : [])),
    );
    if (!w) return;
    await c.query(WATERMARK_UPSERT, [issue, w.updatedAtSecond, w.idsInSecond]);
  }

  async comments(issue: IssueKey, q: CommentQuery = {}): Promise<StoredComment[]> {
    const where = ["issue_key = $1"];
    const args: unknown[] = [issue];
    if (q.afterId !== undefined) where.push(`comment_id > $${args.push(q.afterId)}`);
    if (q.ids !== undefined) where.push(`comment_id = ANY($${args.push([...q.ids])}::bigint[])`);
    const limit = q.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(q.limit))}` : "";
    const cols = q.bodies === false ? `${COLS.replace("body,", "NULL::text AS body,")}, body IS NOT NULL AS has_body` : COLS;
    return this.guard(async () =>
      (await this.pool.query<CommentRow & { has_body?: boolean }>(`SELECT ${cols} FROM checkpost_comments WHERE ${where.join(" AND ")} ORDER BY comment_id${limit}`, args)).rows.map((r) =>
        r.has_body ? { ...toStored(r), bodyOmitted: true } : toStored(r),
      ),
    );
  }

  async commentCount(issue: IssueKey): Promise<number> {
    return this.guard(async () => (await this.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM checkpost_comments WHERE issue_key = $1 AND NOT deleted", [issue])).rows[0]?.n ?? 0);
  }

  async watermark(issue: IssueKey): Promise<Watermark | null> {
    return this.guard(async () => {
      const r = (await this.pool.query<{ s: string; ids: string[] }>("SELECT updated_at_second::text AS s, ids_in_second::text[] AS ids FROM checkpost_watermarks WHERE issue_key = $1", [issue]))
        .rows[0];
      return r ? { updatedAtSecond: Number(r.s), idsInSecond: r.ids.map(Number) } : null;
    });
  }

  async clearIssue(issue: IssueKey): Promise<void> {
    await this.tx(async (c) => {
      for (const t of ["checkpost_comments", "checkpost_watermarks", "checkpost_entries", "checkpost_resume_index", "checkpost_alerts", "checkpost_issue_meta", "checkpost_projection_state"])
        await c.query(`DELETE FROM ${t} WHERE issue_key = $1`, [issue]);
    });
  }

  async issues(): Promise<IssueKey[]> {
    return this.guard(async () => {
      const r = await this.pool.query<{ k: string }>(
        `SELECT issue_key AS k FROM checkpost_comments UNION SELECT issue_key FROM checkpost_watermarks UNION SELECT issue_key FROM checkpost_entries
         UNION SELECT issue_key FROM checkpost_resume_index UNION SELECT issue_key FROM checkpost_alerts UNION SELECT issue_key FROM checkpost_issue_meta ORDER BY 1`,
      );
      return r.rows.map((x) => x.k);
    });
  }

  /** The feed position now: readChanges from it returns whatever commits from here on. */
  async feedCursor(): Promise<FeedCursor> {
    return this.guard(async () => (await this.pool.query<{ x: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x")).rows[0]?.x ?? "0");
  }

  /**
   * What changed on an issue since `cursor` (null: everything), as projection
   * events, and the cursor to pass next time. Rows are found by the id of the
   * transaction that last wrote them; the next cursor is the oldest transaction
   * still running when this read began, so one that commits late is still seen
   * (a row may come twice; folding is idempotent).
   */
  async readChanges(issue: IssueKey, cursor: FeedCursor | null): Promise<{ events: CommentEvent[]; cursor: FeedCursor }> {
    return this.guard(async () => {
      const xmin = (await this.pool.query<{ x: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x")).rows[0]?.x ?? "0";
      const events: CommentEvent[] = [];
      let fromXid = cursor ?? "0";
      let fromId = -1;
      for (;;) {
        const rows = (
          await this.pool.query<FeedRow>(
            `SELECT ${COLS}, xid::text AS xid FROM checkpost_comments
             WHERE issue_key = $1 AND (xid > $2::xid8 OR (xid = $2::xid8 AND comment_id > $3))
             ORDER BY xid, comment_id LIMIT ${PAGE}`,
            [issue, fromXid, fromId],
          )
        ).rows;
        for (const r of rows) events.push(...feedEvents(toStored(r)));
        if (rows.length < PAGE) break;
        const last = rows[rows.length - 1] as FeedRow;
        fromXid = last.xid;
        fromId = Number(last.comment_id);
      }
      return { events, cursor: xmin };
    });
  }

  /**
   * Call `onChange(issue)` whenever a transaction that changed an issue's comment rows commits, on any
   * replica (migration 4's trigger NOTIFYs the issue key on CHANGES_CHANNEL). One connection of its
   * own holds the LISTEN. Before resolving, a probe NOTIFY sent through the pool must come back on it
   * within `probeMs`: behind a transaction-pooling proxy (pgbouncer `pool_mode = transaction`) the
   * LISTEN lands on a server connection the proxy hands to others, nothing ever arrives, and this
   * rejects with ChangesUnheardError so the caller knows it is left with its poll. `onLost` is called
   * once if the connection drops later (the caller polls meanwhile and may listen again).
   */
  async listenChanges(onChange: (issue: IssueKey) => void, onLost: (e: Error) => void, probeMs = 2_000): Promise<ChangeListener> {
    const c = this.ownClient();
    const probe = `probe ${randomUUID()}`;
    let heard!: () => void;
    const probed = new Promise<void>((r) => (heard = r));
    let closing = false;
    let lost = false;
    const drop = (e: Error) => {
      if (closing || lost) return;
      lost = true;
      onLost(e);
    };
    c.on("notification", (m) => {
      if (m.channel !== CHANGES_CHANNEL || m.payload === undefined) return;
      if (m.payload === probe) heard();
      else if (!m.payload.startsWith("probe ")) onChange(m.payload);
    });
    c.on("error", drop);
    c.on("end", () => drop(new Error("the LISTEN connection closed")));
    const close = async () => {
      closing = true;
      await c.end().catch(() => undefined);
    };
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
      await this.pool.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, probe]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), probeMs)));
      const got = await Promise.race([probed.then(() => "heard" as const), late]).finally(() => clearTimeout(timer));
      if (got === "late") throw new ChangesUnheardError(`a NOTIFY sent through the pool did not come back on the LISTEN connection within ${probeMs} ms`);
    } catch (e) {
      await close();
      if (e instanceof ChangesUnheardError) throw e;
      throw new StoreUnavailableError(`PostgreSQL store: cannot LISTEN for changes: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return { close };
  }

  /** Times each comment's row changed, by id (the chaos test checks none changed more than its versions). */
  async appliedCounts(issue: IssueKey): Promise<Map<number, number>> {
    const rows = (await this.guard(() => this.pool.query<{ comment_id: string; applied: number }>("SELECT comment_id, applied FROM checkpost_comments WHERE issue_key = $1", [issue]))).rows;
    return new Map(rows.map((r) => [Number(r.comment_id), r.applied]));
  }

  // ---- derived state --------------------------------------------------------

  async putProjectionState(issue: IssueKey, state: string): Promise<void> {
    await this.guard(() => this.pool.query("INSERT INTO checkpost_projection_state (issue_key, state) VALUES ($1, $2) ON CONFLICT (issue_key) DO UPDATE SET state = excluded.state", [issue, state]));
  }

  async projectionState(issue: IssueKey): Promise<string | null> {
    return this.guard(async () => (await this.pool.query<{ state: string }>("SELECT state FROM checkpost_projection_state WHERE issue_key = $1", [issue])).rows[0]?.state ?? null);
  }

  async putEntries(issue: IssueKey, entries: readonly AgentEntry[], removed: readonly { agent: string; session: string }[] = []): Promise<void> {
    if (!entries.length && !removed.length) return;
    // One statement each (a first start writes every entry: one INSERT a row was a round trip each),
    // rows in one order for every replica (row locks).
    const byKey = (a: { agent: string; session: string }, b: { agent: string; session: string }) =>
      a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : a.session < b.session ? -1 : a.session > b.session ? 1 : 0;
    entries = [...entries].sort(byKey);
    await this.tx(async (c) => {
      if (removed.length)
        await c.query(`DELETE FROM checkpost_entries WHERE issue_key = $1 AND (agent, session) IN (SELECT a COLLATE "C", s COLLATE "C" FROM unnest($2::text[], $3::text[]) AS t(a, s))`, [
          issue,
          removed.map((r) => r.agent),
          removed.map((r) => r.session),
        ]);
      if (entries.length)
        await c.query(
          `INSERT INTO checkpost_entries (issue_key, agent, session, entry) SELECT $1, a, s, e::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS t(a, s, e)
           ON CONFLICT (issue_key, agent, session) DO UPDATE SET entry = excluded.entry`,
          [issue, entries.map((e) => e.agent), entries.map((e) => e.session), entries.map((e) => JSON.stringify(e))],
        );
    });
  }

  async entries(issue: IssueKey): Promise<AgentEntry[]> {
    return this.guard(async () => (await this.pool.query<{ entry: AgentEntry }>("SELECT entry FROM checkpost_entries WHERE issue_key = $1 ORDER BY agent, session", [issue])).rows.map((r) => r.entry));
  }

  async entry(issue: IssueKey, agent: string, session: string): Promise<AgentEntry | null> {
    return this.guard(
      async () =>
        (await this.pool.query<{ entry: AgentEntry }>("SELECT entry FROM checkpost_entries WHERE issue_key = $1 AND agent = $2 AND session = $3", [issue, agent, session])).rows[0]?.entry ?? null,
    );
  }

  async putResumeIndex(fence: Fence, issue: IssueKey, index: ResumeIndex): Promise<void> {
    await this.fenced(fence, (c) =>
      c.query("INSERT INTO checkpost_resume_index (issue_key, index, token) VALUES ($1, $2, $3) ON CONFLICT (issue_key) DO UPDATE SET index = excluded.index, token = excluded.token", [
        issue,
        JSON.stringify(index),
        fence.token,
      ]),
    );
  }

  async resumeIndex(issue: IssueKey): Promise<ResumeIndex | null> {
    return this.guard(async () => (await this.pool.query<{ index: ResumeIndex }>("SELECT index FROM checkpost_resume_index WHERE issue_key = $1", [issue])).rows[0]?.index ?? null);
  }

  async recordAlert(fence: Fence, issue: IssueKey, alertKey: string): Promise<boolean> {
    return this.fenced(fence, async (c) => {
      const r = await c.query("INSERT INTO checkpost_alerts (issue_key, alert_key, token) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [issue, alertKey, fence.token]);
      return r.rowCount === 1;
    });
  }

  async hasAlert(issue: IssueKey, alertKey: string): Promise<boolean> {
    return this.guard(async () => (await this.pool.query("SELECT 1 FROM checkpost_alerts WHERE issue_key = $1 AND alert_key = $2", [issue, alertKey])).rowCount === 1);
  }

  async issueMeta(issue: IssueKey): Promise<IssueMeta> {
    return this.guard(async () => IssueMetaSchema.parse((await this.pool.query<{ meta: unknown }>("SELECT meta FROM checkpost_issue_meta WHERE issue_key = $1", [issue])).rows[0]?.meta ?? {}));
  }

  async updateIssueMeta(fence: Fence, issue: IssueKey, patch: Partial<IssueMeta>): Promise<IssueMeta> {
    return this.fenced(fence, async (c) => {
      const cur = IssueMetaSchema.parse((await c.query<{ meta: unknown }>("SELECT meta FROM checkpost_issue_meta WHERE issue_key = $1 FOR UPDATE", [issue])).rows[0]?.meta ?? {});
      const next = IssueMetaSchema.parse({ ...cur, ...patch });
      await c.query("INSERT INTO checkpost_issue_meta (issue_key, meta) VALUES ($1, $2) ON CONFLICT (issue_key) DO UPDATE SET meta = excluded.meta", [issue, JSON.stringify(next)]);
      return next;
    });
  }

  async pruneDeliveries(olderThanMs: number): Promise<number> {
    return this.guard(async () => (await this.pool.query("DELETE FROM checkpost_deliveries WHERE received_ms < $1", [olderThanMs])).rowCount ?? 0);
  }

  // ---- leases ---------------------------------------------------------------

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.pool.query<{ token: string; expires_ms: string }>(
        `WITH now AS (SELECT COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
         INSERT INTO checkpost_leases AS l (name, holder, token, expires_ms, acquired_ms)
         SELECT $1, $2, 1, now.ms + $3, now.ms FROM now
         ON CONFLICT (name) DO UPDATE
           SET holder = excluded.holder, token = l.token + 1, expires_ms = excluded.expires_ms, acquired_ms = excluded.acquired_ms
           WHERE l.expires_ms <= excluded.acquired_ms OR l.holder = excluded.holder
         RETURNING token::text, expires_ms::text`,
        [name, holder, ttlMs, this.nowParam()],
      );
      const row = r.rows[0];
      return row ? { name, holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms) } : null;
    });
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.pool.query<{ expires_ms: string }>(
        `WITH now AS (SELECT COALESCE($5::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
         UPDATE checkpost_leases SET expires_ms = now.ms + $4 FROM now
         WHERE name = $1 AND holder = $2 AND token = $3 AND expires_ms > now.ms
         RETURNING expires_ms::text`,
        [lease.name, lease.holder, lease.token, ttlMs, this.nowParam()],
      );
      const row = r.rows[0];
      return row ? { ...lease, expiresAtMs: Number(row.expires_ms) } : null;
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.guard(() =>
      this.pool.query(
        `UPDATE checkpost_leases SET expires_ms = LEAST(expires_ms, COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint))
         WHERE name = $1 AND holder = $2 AND token = $3`,
        [lease.name, lease.holder, lease.token, this.nowParam()],
      ),
    );
  }

  async peekLease(name: string): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.pool.query<{ holder: string; token: string; expires_ms: string }>("SELECT holder, token::text, expires_ms::text FROM checkpost_leases WHERE name = $1", [name]);
      const row = r.rows[0];
      return row ? { name, holder: row.holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms) } : null;
    });
  }

  async claimCommand(issue: IssueKey, key: string, outcome: "run" | "baseline"): Promise<boolean> {
    return this.guard(async () => {
      const r = await this.pool.query(
        "INSERT INTO checkpost_commands (issue_key, command_key, outcome, at_ms) VALUES ($1, $2, $3, COALESCE($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) ON CONFLICT DO NOTHING",
        [issue, key, outcome, this.nowParam()],
      );
      return r.rowCount === 1;
    });
  }

  async checkFence(fence: Fence): Promise<void> {
    await this.fenced(fence, async () => undefined);
  }

  /** The lease as stored now, whoever holds it (null: never taken). */
  async currentLease(name: string): Promise<(Lease & { live: boolean }) | null> {
    return this.guard(async () => {
      const row = (
        await this.pool.query<{ holder: string; token: string; expires_ms: string; live: boolean }>(
          `SELECT holder, token::text, expires_ms::text, expires_ms > COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS live
           FROM checkpost_leases WHERE name = $1`,
          [name, this.nowParam()],
        )
      ).rows[0];
      return row ? { name, holder: row.holder, token: Number(row.token), expiresAtMs: Number(row.expires_ms), live: row.live } : null;
    });
  }

  /** Note that a replica is alive; returns how many were seen within `withinMs` (itself included). */
  async heartbeat(replicaId: string, withinMs: number): Promise<number> {
    return this.guard(async () => {
      const now = this.clock?.() ?? null;
      await this.pool.query(
        "INSERT INTO checkpost_replicas (replica_id, seen_ms) VALUES ($1, COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) ON CONFLICT (replica_id) DO UPDATE SET seen_ms = excluded.seen_ms",
        [replicaId, now],
      );
      const r = await this.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM checkpost_replicas WHERE seen_ms > COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) - $1",
        [withinMs, now],
      );
      return r.rows[0]?.n ?? 1;
    });
  }

  /** A replica stopping cleanly: it no longer counts among the live (its leases' share goes to the others at once). */
  async forgetReplica(replicaId: string): Promise<void> {
    await this.guard(() => this.pool.query("DELETE FROM checkpost_replicas WHERE replica_id = $1", [replicaId]));
  }

  /**
   * One write to Forgejo under a lease: begun only if the fence is the lease's
   * current, unexpired token (checked and logged in one transaction holding
   * the lease row, so a takeover cannot interleave), else StaleLeaseError and
   * `write` is not called. The log row is closed when the write returns.
   */
  async fencedWrite<T>(fence: Fence & { holder: string }, kind: string, write: () => Promise<T>): Promise<T> {
    const id = await this.fenced(fence, async (c, nowMs) => {
      const r = await c.query<{ id: string }>("INSERT INTO checkpost_write_log (name, kind, holder, token, started_ms) VALUES ($1, $2, $3, $4, $5) RETURNING id::text", [
        fence.name,
        kind,
        fence.holder,
        fence.token,
        nowMs,
      ]);
      return r.rows[0]?.id as string;
    });
    try {
      return await write();
    } finally {
      await this.pool
        .query("UPDATE checkpost_write_log SET ended_ms = COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) WHERE id = $1", [id, this.nowParam()])
        .catch((e: unknown) => this.log?.warn({ err: e }, "could not close a write-log row"));
    }
  }

  async writeLog(name?: string): Promise<WriteLogRow[]> {
    const r = await this.guard(() =>
      this.pool.query<{ name: string; kind: string; holder: string; token: string; started_ms: string; ended_ms: string | null }>(
        `SELECT name, kind, holder, token::text, started_ms::text, ended_ms::text FROM checkpost_write_log ${name ? "WHERE name = $1" : ""} ORDER BY started_ms, id`,
        name ? [name] : [],
      ),
    );
    return r.rows.map((x) => ({ name: x.name, kind: x.kind, holder: x.holder, token: Number(x.token), startedMs: Number(x.started_ms), endedMs: x.ended_ms === null ? null : Number(x.ended_ms) }));
  }

  /**
   * Run `fn` in a transaction that first locks the lease row (FOR SHARE: a
   * takeover's UPDATE waits for us) and checks the fence is current and live.
   */
  private async fenced<T>(fence: Fence, fn: (c: pg.PoolClient, nowMs: number) => Promise<T>): Promise<T> {
    return this.tx(async (c) => {
      const row = (
        await c.query<{ token: string; live: boolean; now_ms: string }>(
          `WITH now AS (SELECT COALESCE($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
           SELECT token::text, expires_ms > now.ms AS live, now.ms::text AS now_ms FROM checkpost_leases, now WHERE name = $1 FOR SHARE OF checkpost_leases`,
          [fence.name, this.nowParam()],
        )
      ).rows[0];
      if (!row || Number(row.token) !== fence.token || !row.live) throw new StaleLeaseError(fence.name, fence.token, row ? Number(row.token) : null);
      return fn(c, Number(row.now_ms));
    });
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
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
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
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
