import Database from "better-sqlite3";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { systemMs } from "../clock.ts";
import type { AgentEntry, CommentEvent } from "../projection/index.ts";
import type { ResumeIndex } from "../dashboard/index.ts";
import { foldStoredComment } from "./fold-stored-comment.ts";
import { IssueMetaSchema } from "./projection-store.ts";
import type { ApplyResult, Fence, IssueKey, IssueMeta, Lease, ProjectionStore, ProjectionStoreOptions, StoredComment, Watermark } from "./projection-store.ts";
import { migrateSqlite } from "./sqlite-schema.ts";
import { StaleLeaseError } from "./stale-lease-error.ts";

interface CommentRow {
  id: number;
  author: string;
  created_at: string;
  updated_at: string;
  html_url: string | null;
  hash: string;
  multi: number;
  body: string | null;
  deleted: number;
}
interface LeaseRow {
  name: string;
  holder: string | null;
  token: number;
  expires_ms: number;
}

const toStored = (r: CommentRow): StoredComment => ({
  id: r.id,
  author: r.author,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.html_url !== null ? { htmlUrl: r.html_url } : {}),
  hash: r.hash,
  multi: r.multi === 1,
  body: r.body,
  deleted: r.deleted === 1,
});

/**
 * The ProjectionStore on one SQLite file (better-sqlite3, WAL). Several
 * processes may open the same file: writes are serialised by SQLite's write
 * lock (BEGIN IMMEDIATE, busy timeout), so leases and delivery dedupe hold
 * across them. better-sqlite3 is synchronous; the methods are async only to
 * share the interface with PostgreSQL.
 */
export function createSqliteProjectionStore(file: string, options: ProjectionStoreOptions = {}): ProjectionStore {
  const now = options.now ?? systemMs;
  if (file !== ":memory:") {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Only the bot's user reads it (saved state, claimed commands): created 0600, or made so (issue 28.6).
    // SQLite creates the -wal and -shm files with the database file's mode.
    closeSync(openSync(file, "a", 0o600));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  }
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  // SQLite's own default page cache (2 MiB), not better-sqlite3's 16 MiB: a restart reads the whole
  // comments table once and the cache would keep it resident; the OS page cache serves re-reads.
  db.pragma("cache_size = -2000");
  migrateSqlite(db);

  const cache = new Map<string, Database.Statement>();
  const st = (sql: string): Database.Statement => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };
  /** Run fn in a write transaction taken at BEGIN (no lock upgrade race between processes). */
  const write = <T>(fn: () => T): T => db.transaction(fn).immediate();

  const getComment = (issue: string, id: number) => st("SELECT * FROM comments WHERE issue = ? AND id = ?").get(issue, id) as CommentRow | undefined;
  const putComment = (issue: string, c: StoredComment) =>
    st(
      "INSERT INTO comments (issue, id, author, created_at, updated_at, html_url, hash, multi, body, deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (issue, id) DO UPDATE SET author = excluded.author, created_at = excluded.created_at, updated_at = excluded.updated_at, html_url = excluded.html_url, " +
        "hash = excluded.hash, multi = excluded.multi, body = excluded.body, deleted = excluded.deleted",
    ).run(issue, c.id, c.author, c.createdAt, c.updatedAt, c.htmlUrl ?? null, c.hash, c.multi ? 1 : 0, c.body, c.deleted ? 1 : 0);
  const watermarkSecond = (issue: string) => (st("SELECT second FROM watermarks WHERE issue = ?").get(issue) as { second: number } | undefined)?.second;
  const getWatermark = (issue: string): Watermark | null => {
    const second = watermarkSecond(issue);
    if (second === undefined) return null;
    const ids = st("SELECT id FROM watermark_ids WHERE issue = ? ORDER BY id").pluck().all(issue) as number[];
    return { updatedAtSecond: second, idsInSecond: ids };
  };
  /**
   * Advance the stored watermark by one comment version (advanceWatermark's rule, in place): a newer
   * second replaces the ids, the same second adds one. O(1) per version, however many share the second.
   */
  const advanceStoredWatermark = (issue: string, v: { id: number; updatedAt: string }) => {
    const s = Math.floor(Date.parse(v.updatedAt) / 1000);
    const second = watermarkSecond(issue);
    if (second !== undefined && s < second) return;
    if (second === undefined || s > second) {
      st("INSERT OR REPLACE INTO watermarks (issue, second, ids) VALUES (?, ?, '[]')").run(issue, s);
      st("DELETE FROM watermark_ids WHERE issue = ?").run(issue);
    }
    st("INSERT OR IGNORE INTO watermark_ids (issue, id) VALUES (?, ?)").run(issue, v.id);
  };
  const leaseRow = (name: string) => st("SELECT * FROM leases WHERE name = ?").get(name) as LeaseRow | undefined;
  const fenceOk = (fence: Fence) => {
    const r = leaseRow(fence.name);
    if (!r || r.holder === null || r.token !== fence.token || r.expires_ms <= now())
      throw new StaleLeaseError(fence.name, fence.token, r && r.holder !== null && r.expires_ms > now() ? r.token : null);
  };
  const getMeta = (issue: string): IssueMeta => {
    const r = st("SELECT json FROM issue_meta WHERE issue = ?").get(issue) as { json: string } | undefined;
    return r ? IssueMetaSchema.parse(JSON.parse(r.json)) : {};
  };

  const apply = (issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): ApplyResult => {
    if (deliveryId !== null) {
      const inserted = st("INSERT INTO deliveries (id, issue, at_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING").run(deliveryId, issue, now());
      if (inserted.changes === 0) return { duplicate: true, changed: [] };
    }
    const changed: CommentEvent[] = [];
    for (const ev of events) {
      const id = ev.type === "delete" ? ev.commentId : ev.comment.id;
      const prevRow = getComment(issue, id);
      const next = foldStoredComment(prevRow && toStored(prevRow), ev);
      if (!next) continue;
      putComment(issue, next);
      changed.push(ev);
      if (ev.type === "upsert") advanceStoredWatermark(issue, ev.comment);
    }
    return { duplicate: false, changed };
  };

  return {
    async applyDelivery(issue, deliveryId, events) {
      return write(() => apply(issue, deliveryId, events));
    },
    async comments(issue, q = {}) {
      const where = ["issue = ?"];
      const args: (string | number)[] = [issue];
      if (q.afterId !== undefined) {
        where.push("id > ?");
        args.push(q.afterId);
      }
      if (q.ids !== undefined) {
        where.push("id IN (SELECT value FROM json_each(?))");
        args.push(JSON.stringify(q.ids));
      }
      const limit = q.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(q.limit))}` : "";
      if (q.bodies === false) {
        const cols = "id, author, created_at, updated_at, html_url, hash, multi, NULL AS body, deleted, body IS NOT NULL AS has_body";
        return (st(`SELECT ${cols} FROM comments WHERE ${where.join(" AND ")} ORDER BY id${limit}`).all(...args) as (CommentRow & { has_body: number })[]).map((r) => {
          const c = toStored(r);
          if (r.has_body) c.bodyOmitted = true;
          return c;
        });
      }
      return (st(`SELECT * FROM comments WHERE ${where.join(" AND ")} ORDER BY id${limit}`).all(...args) as CommentRow[]).map(toStored);
    },
    async commentCount(issue) {
      return (st("SELECT COUNT(*) AS n FROM comments WHERE issue = ? AND deleted = 0").get(issue) as { n: number }).n;
    },
    async watermark(issue) {
      return getWatermark(issue);
    },
    async clearIssue(issue) {
      write(() => {
        for (const t of ["comments", "watermarks", "watermark_ids", "entries", "resume_index", "projection_state", "alerts", "issue_meta", "deliveries"])
          st(`DELETE FROM ${t} WHERE issue = ?`).run(issue);
      });
    },
    async issues() {
      return (st("SELECT DISTINCT issue FROM comments UNION SELECT issue FROM issue_meta ORDER BY 1").all() as { issue: string }[]).map((r) => r.issue);
    },
    async putProjectionState(issue, state) {
      write(() => st("INSERT OR REPLACE INTO projection_state (issue, json) VALUES (?, ?)").run(issue, state));
    },
    async projectionState(issue) {
      return (st("SELECT json FROM projection_state WHERE issue = ?").get(issue) as { json: string } | undefined)?.json ?? null;
    },
    async putEntries(issue, entries, removed = []) {
      write(() => {
        for (const r of removed) st("DELETE FROM entries WHERE issue = ? AND agent = ? AND session = ?").run(issue, r.agent, r.session);
        for (const e of entries) st("INSERT OR REPLACE INTO entries (issue, agent, session, json) VALUES (?, ?, ?, ?)").run(issue, e.agent, e.session, JSON.stringify(e));
      });
    },
    async entries(issue) {
      // BINARY collation compares UTF-8 bytes: code point order, as the projection sorts.
      return (st("SELECT json FROM entries WHERE issue = ? ORDER BY agent, session").all(issue) as { json: string }[]).map((r) => JSON.parse(r.json) as AgentEntry);
    },
    async entry(issue, agent, session) {
      const r = st("SELECT json FROM entries WHERE issue = ? AND agent = ? AND session = ?").get(issue, agent, session) as { json: string } | undefined;
      return r ? (JSON.parse(r.json) as AgentEntry) : null;
    },
    async putResumeIndex(fence, issue, index) {
      write(() => {
        fenceOk(fence);
        st("INSERT OR REPLACE INTO resume_index (issue, json) VALUES (?, ?)").run(issue, JSON.stringify(index));
      });
    },
    async resumeIndex(issue) {
      const r = st("SELECT json FROM resume_index WHERE issue = ?").get(issue) as { json: string } | undefined;
      return r ? (JSON.parse(r.json) as ResumeIndex) : null;
    },
    async recordAlert(fence, issue, alertKey) {
      return write(() => {
        fenceOk(fence);
        return st("INSERT INTO alerts (issue, key) VALUES (?, ?) ON CONFLICT DO NOTHING").run(issue, alertKey).changes === 1;
      });
    },
    async hasAlert(issue, alertKey) {
      return st("SELECT 1 FROM alerts WHERE issue = ? AND key = ?").get(issue, alertKey) !== undefined;
    },
    async issueMeta(issue) {
      return getMeta(issue);
    },
    async updateIssueMeta(fence, issue, patch) {
      return write(() => {
        fenceOk(fence);
        const next = IssueMetaSchema.parse({ ...getMeta(issue), ...patch });
        st("INSERT OR REPLACE INTO issue_meta (issue, json) VALUES (?, ?)").run(issue, JSON.stringify(next));
        return next;
      });
    },
    async pruneDeliveries(olderThanMs) {
      return write(() => st("DELETE FROM deliveries WHERE at_ms < ?").run(olderThanMs).changes);
    },
    async acquireLease(name, holder, ttlMs) {
      return write(() => {
        const r = leaseRow(name);
        const t = now();
        if (r && r.holder !== null && r.holder !== holder && r.expires_ms > t) return null;
        const lease: Lease = { name, holder, token: (r?.token ?? 0) + 1, expiresAtMs: t + ttlMs };
        st("INSERT OR REPLACE INTO leases (name, holder, token, expires_ms) VALUES (?, ?, ?, ?)").run(name, holder, lease.token, lease.expiresAtMs);
        return lease;
      });
    },
    async renewLease(lease, ttlMs) {
      return write(() => {
        const r = leaseRow(lease.name);
        const t = now();
        if (!r || r.holder !== lease.holder || r.token !== lease.token || r.expires_ms <= t) return null;
        const next = { ...lease, expiresAtMs: t + ttlMs };
        st("UPDATE leases SET expires_ms = ? WHERE name = ?").run(next.expiresAtMs, lease.name);
        return next;
      });
    },
    async releaseLease(lease) {
      write(() => st("UPDATE leases SET holder = NULL, expires_ms = 0 WHERE name = ? AND token = ? AND holder = ?").run(lease.name, lease.token, lease.holder));
    },
    async checkFence(fence) {
      fenceOk(fence);
    },
    async peekLease(name) {
      const r = leaseRow(name);
      return r && r.holder !== null ? { name, holder: r.holder, token: r.token, expiresAtMs: r.expires_ms } : null;
    },
    async claimCommand(issue, key, outcome) {
      return write(() => st("INSERT INTO commands (issue, key, outcome, at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(issue, key, outcome, now()).changes === 1);
    },
    async close() {
      db.close();
    },
  };
}
