import { type MsClock, systemMs } from "../clock.ts";
import type { ResumeIndex } from "../dashboard/index.ts";
import type { AgentEntry, CommentEvent } from "../projection/index.ts";
import { advanceWatermarkAll } from "./advance-watermark-all.ts";
import { foldStoredComment } from "./fold-stored-comment.ts";
import { IssueMetaSchema } from "./projection-store.ts";
import type {
  ApplyResult,
  CommandClaims,
  CommentLog,
  CommentQuery,
  EntryView,
  Fence,
  IssueBookkeeping,
  IssueKey,
  IssueMeta,
  Lease,
  LeaseStore,
  ProjectionStore,
  ProjectionStoreOptions,
  StoredComment,
  Watermark,
} from "./projection-store.ts";
import { StaleLeaseError } from "./stale-lease-error.ts";

// Each port of the bot's state in memory, for tests and embedders that keep nothing: one class per
// port, so a test fakes exactly the port its subject takes (no casts), and createMemoryProjectionStore
// combines them into a whole ProjectionStore that passes the same contract as SQLite and PostgreSQL
// (test/helpers/projection-store-contract.ts). Values are copied in and out, as a database would.

const copy = <T>(v: T): T => structuredClone(v);
/** Maps keyed by issue, then by something within it. */
const inner = <K, V>(m: Map<IssueKey, Map<K, V>>, issue: IssueKey): Map<K, V> => {
  let x = m.get(issue);
  if (!x) m.set(issue, (x = new Map()));
  return x;
};

/** The stored comments, watermarks and applied delivery ids. */
export class MemoryCommentLog implements CommentLog {
  private readonly rows = new Map<IssueKey, Map<number, StoredComment>>();
  private readonly marks = new Map<IssueKey, Watermark>();
  private readonly deliveries = new Map<string, { issue: IssueKey; atMs: number }>();
  constructor(private readonly now: MsClock = systemMs) {}

  async applyDelivery(issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): Promise<ApplyResult> {
    if (deliveryId !== null) {
      if (this.deliveries.has(deliveryId)) return { duplicate: true, changed: [] };
      this.deliveries.set(deliveryId, { issue, atMs: this.now() });
    }
    const rows = inner(this.rows, issue);
    const changed: CommentEvent[] = [];
    const versions: { id: number; updatedAt: string }[] = [];
    for (const ev of events) {
      const id = ev.type === "delete" ? ev.commentId : ev.comment.id;
      const next = foldStoredComment(rows.get(id), ev);
      if (!next) continue;
      rows.set(id, next);
      changed.push(ev);
      if (ev.type === "upsert") versions.push({ id: ev.comment.id, updatedAt: ev.comment.updatedAt });
    }
    const w0 = this.marks.get(issue) ?? null;
    const w = advanceWatermarkAll(w0, versions);
    if (w && w !== w0) this.marks.set(issue, w);
    return { duplicate: false, changed };
  }

  async comments(issue: IssueKey, q: CommentQuery = {}): Promise<StoredComment[]> {
    const ids = q.ids ? new Set(q.ids) : undefined;
    const all = [...(this.rows.get(issue)?.values() ?? [])]
      .filter((c) => (q.afterId === undefined || c.id > q.afterId) && (ids === undefined || ids.has(c.id)))
      .sort((a, b) => a.id - b.id)
      .slice(0, q.limit !== undefined ? Math.max(0, Math.floor(q.limit)) : undefined);
    return all.map((c) => (q.bodies === false && c.body !== null ? { ...copy(c), body: null, bodyOmitted: true } : copy(c)));
  }

  async commentCount(issue: IssueKey): Promise<number> {
    return [...(this.rows.get(issue)?.values() ?? [])].filter((c) => !c.deleted).length;
  }

  async watermark(issue: IssueKey): Promise<Watermark | null> {
    const w = this.marks.get(issue);
    return w ? copy(w) : null;
  }

  async clearIssue(issue: IssueKey): Promise<void> {
    this.rows.delete(issue);
    this.marks.delete(issue);
    for (const [id, d] of this.deliveries) if (d.issue === issue) this.deliveries.delete(id);
  }

  async issues(): Promise<IssueKey[]> {
    return [...this.rows.keys()].filter((k) => (this.rows.get(k)?.size ?? 0) > 0).sort();
  }

  async pruneDeliveries(olderThanMs: number): Promise<number> {
    let n = 0;
    for (const [id, d] of this.deliveries)
      if (d.atMs < olderThanMs) {
        this.deliveries.delete(id);
        n++;
      }
    return n;
  }
}

/** Writer leases: tokens grow with every acquisition of a name, never with a renewal. */
export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, { holder: string | null; token: number; expiresAtMs: number }>();
  constructor(private readonly now: MsClock = systemMs) {}

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const r = this.leases.get(name);
    const t = this.now();
    if (r && r.holder !== null && r.holder !== holder && r.expiresAtMs > t) return null;
    const lease: Lease = { name, holder, token: (r?.token ?? 0) + 1, expiresAtMs: t + ttlMs };
    this.leases.set(name, { holder, token: lease.token, expiresAtMs: lease.expiresAtMs });
    return lease;
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const r = this.leases.get(lease.name);
    const t = this.now();
    if (!r || r.holder !== lease.holder || r.token !== lease.token || r.expiresAtMs <= t) return null;
    r.expiresAtMs = t + ttlMs;
    return { ...lease, expiresAtMs: r.expiresAtMs };
  }

  async releaseLease(lease: Lease): Promise<void> {
    const r = this.leases.get(lease.name);
    if (r && r.token === lease.token && r.holder === lease.holder) {
      r.holder = null;
      r.expiresAtMs = 0;
    }
  }

  async peekLease(name: string): Promise<Lease | null> {
    const r = this.leases.get(name);
    return r && r.holder !== null ? { name, holder: r.holder, token: r.token, expiresAtMs: r.expiresAtMs } : null;
  }

  async checkFence(fence: Fence): Promise<void> {
    const r = this.leases.get(fence.name);
    const t = this.now();
    if (!r || r.holder === null || r.token !== fence.token || r.expiresAtMs <= t) throw new StaleLeaseError(fence.name, fence.token, r && r.holder !== null && r.expiresAtMs > t ? r.token : null);
  }
}

/** Entries, sealed projection state and resume index; the resume index is written under a fence. */
export class MemoryEntryView implements EntryView {
  private readonly states = new Map<IssueKey, string>();
  private readonly rows = new Map<IssueKey, Map<string, AgentEntry>>();
  private readonly indexes = new Map<IssueKey, ResumeIndex>();
  constructor(private readonly fences: Pick<LeaseStore, "checkFence">) {}

  async putProjectionState(issue: IssueKey, state: string): Promise<void> {
    this.states.set(issue, state);
  }
  async projectionState(issue: IssueKey): Promise<string | null> {
    return this.states.get(issue) ?? null;
  }
  async putEntries(issue: IssueKey, entries: readonly AgentEntry[], removed: readonly { agent: string; session: string }[] = []): Promise<void> {
    const rows = inner(this.rows, issue);
    for (const r of removed) rows.delete(JSON.stringify([r.agent, r.session]));
    for (const e of entries) rows.set(JSON.stringify([e.agent, e.session]), copy(e));
  }
  async entries(issue: IssueKey): Promise<AgentEntry[]> {
    // Code point order, as SQLite's BINARY collation and the projection sort.
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...(this.rows.get(issue)?.values() ?? [])].sort((a, b) => cmp(a.agent, b.agent) || cmp(a.session, b.session)).map(copy);
  }
  async entry(issue: IssueKey, agent: string, session: string): Promise<AgentEntry | null> {
    const e = this.rows.get(issue)?.get(JSON.stringify([agent, session]));
    return e ? copy(e) : null;
  }
  async putResumeIndex(fence: Fence, issue: IssueKey, index: ResumeIndex): Promise<void> {
    await this.fences.checkFence(fence);
    this.indexes.set(issue, copy(index));
  }
  async resumeIndex(issue: IssueKey): Promise<ResumeIndex | null> {
    const i = this.indexes.get(issue);
    return i ? copy(i) : null;
  }
  clearIssue(issue: IssueKey): void {
    this.states.delete(issue);
    this.rows.delete(issue);
    this.indexes.delete(issue);
  }
}

/** Alerts posted and rollover/compaction meta; leader writes are fenced. */
export class MemoryIssueBookkeeping implements IssueBookkeeping {
  private readonly alerts = new Map<IssueKey, Set<string>>();
  private readonly meta = new Map<IssueKey, IssueMeta>();
  constructor(private readonly fences: Pick<LeaseStore, "checkFence">) {}

  async recordAlert(fence: Fence, issue: IssueKey, alertKey: string): Promise<boolean> {
    await this.fences.checkFence(fence);
    let s = this.alerts.get(issue);
    if (!s) this.alerts.set(issue, (s = new Set()));
    if (s.has(alertKey)) return false;
    s.add(alertKey);
    return true;
  }
  async hasAlert(issue: IssueKey, alertKey: string): Promise<boolean> {
    return this.alerts.get(issue)?.has(alertKey) ?? false;
  }
  async issueMeta(issue: IssueKey): Promise<IssueMeta> {
    return copy(this.meta.get(issue) ?? {});
  }
  async updateIssueMeta(fence: Fence, issue: IssueKey, patch: Partial<IssueMeta>): Promise<IssueMeta> {
    await this.fences.checkFence(fence);
    const next = IssueMetaSchema.parse({ ...(this.meta.get(issue) ?? {}), ...copy(patch) });
    this.meta.set(issue, next);
    return copy(next);
  }
  /** Issues with meta stored (a rolled-over issue may have no comments left). */
  issues(): IssueKey[] {
    return [...this.meta.keys()];
  }
  clearIssue(issue: IssueKey): void {
    this.alerts.delete(issue);
    this.meta.delete(issue);
  }
}

/** Commands claimed, per issue, at most once each. */
export class MemoryCommandClaims implements CommandClaims {
  private readonly claimed = new Map<IssueKey, Map<string, "run" | "baseline">>();
  async claimCommand(issue: IssueKey, key: string, outcome: "run" | "baseline"): Promise<boolean> {
    const m = inner(this.claimed, issue);
    if (m.has(key)) return false;
    m.set(key, outcome);
    return true;
  }
}

/** A whole ProjectionStore in memory (nothing kept across processes), made of the ports above. */
export function createMemoryProjectionStore(options: ProjectionStoreOptions = {}): ProjectionStore {
  const now = options.now ?? systemMs;
  const log = new MemoryCommentLog(now);
  const leases = new MemoryLeaseStore(now);
  const view = new MemoryEntryView(leases);
  const books = new MemoryIssueBookkeeping(leases);
  const claims = new MemoryCommandClaims();
  return {
    applyDelivery: (i, d, e) => log.applyDelivery(i, d, e),
    comments: (i, q) => log.comments(i, q),
    commentCount: (i) => log.commentCount(i),
    watermark: (i) => log.watermark(i),
    clearIssue: async (i) => {
      await log.clearIssue(i);
      view.clearIssue(i);
      books.clearIssue(i);
    },
    issues: async () => [...new Set([...(await log.issues()), ...books.issues()])].sort(),
    pruneDeliveries: (ms) => log.pruneDeliveries(ms),
    putProjectionState: (i, s) => view.putProjectionState(i, s),
    projectionState: (i) => view.projectionState(i),
    putEntries: (i, e, r) => view.putEntries(i, e, r),
    entries: (i) => view.entries(i),
    entry: (i, a, s) => view.entry(i, a, s),
    putResumeIndex: (f, i, x) => view.putResumeIndex(f, i, x),
    resumeIndex: (i) => view.resumeIndex(i),
    acquireLease: (n, h, t) => leases.acquireLease(n, h, t),
    renewLease: (l, t) => leases.renewLease(l, t),
    releaseLease: (l) => leases.releaseLease(l),
    peekLease: (n) => leases.peekLease(n),
    checkFence: (f) => leases.checkFence(f),
    recordAlert: (f, i, k) => books.recordAlert(f, i, k),
    hasAlert: (i, k) => books.hasAlert(i, k),
    issueMeta: (i) => books.issueMeta(i),
    updateIssueMeta: (f, i, p) => books.updateIssueMeta(f, i, p),
    claimCommand: (i, k, o) => claims.claimCommand(i, k, o),
    close: async () => {},
  };
}
