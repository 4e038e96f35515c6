import { compactHealth } from "../../compaction/compact-health.ts";
import type { CompactionResult } from "../../compaction/compact-health.ts";
import { supersededHealthSelector } from "../../compaction/select-superseded-health.ts";
import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../../ports/issue-host.ts";
import type { CommentRecord, Projection, TrustPolicy } from "../../projection/index.ts";
import type { BotState } from "../../bot-state/index.ts";
import type { IssueLease } from "../replicas/issue-lease.ts";
import { carryLateSaves, rollOverIfDue } from "./issue-rollover.ts";
import type { RolloverDeps } from "./issue-rollover.ts";
import type { IssueMetaCell } from "./issue-meta.ts";
import { STORE_PAGE } from "../ingest/stored-comments.ts";

/** How long upkeep trusts the meta it last read under the lease it holds (see TrackerUpkeep.quiet). */
export const META_TRUST_MS = 1_000;

/** What TrackerUpkeep uses: the issue on its host and in the store, the lease, its settings, the meta cell. */
export interface TrackerUpkeepDeps {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  policy: TrustPolicy;
  selfLogin: string;
  store: BotState;
  /** The store's key of this issue. */
  storeKey: string;
  /** owner/repo#issue, for logs. */
  key: string;
  logger: Pick<Logger, "info" | "warn">;
  lease: Pick<IssueLease, "current">;
  now: () => Date;
  projection: Pick<Projection, "snapshot">;
  /** Rollover settings and how to start watching a successor. */
  rollover: Pick<RolloverDeps, "title" | "label" | "rolloverAt" | "track">;
  /** Health compaction: retention (0: off) and period. */
  compaction: { retentionMs: number; intervalMs: number };
  readWindowSize?: number;
  /** The store's bookkeeping of the issue: read for the predecessor, refreshed after each run. */
  meta: IssueMetaCell;
}

/** The writer's upkeep of one issue: rollover, carrying late saves from the closed predecessor, health compaction. */
export class TrackerUpkeep {
  private maintaining: Promise<void> | null = null;
  private maintainAgain = false;
  private lastCompactionAt = 0;
  private saidArchivesOff = false;
  /** Set on start and reconcile: the writer's next upkeep checks the closed predecessor for late saves. */
  lateCarryDue = false;
  /** Once rolled over: this issue's state at its last carry into the open head (see rollOverIfDue). */
  private readonly lateCarry: { checkedAt: string | null } = { checkedAt: null };
  /** Per closed predecessor, who held its lease when the late carry last found it held (logged once per holder). */
  private readonly lateCarryHeldBy = new Map<number, string | null>();
  /** Set by the tracker's stop: no upkeep runs after it. */
  stopped = false;
  /** The lease token under which, and when, upkeep last read the meta from the store (see quiet). */
  private metaRead: { token: number; atMs: number } | null = null;

  constructor(private readonly t: TrackerUpkeepDeps) {}

  /** Rollover (and carrying saves that raced it), after changes, by the writer only; one run at a time. */
  schedule(): void {
    if (this.maintaining) {
      this.maintainAgain = true;
      return;
    }
    this.maintaining = new Promise<void>((r) => setImmediate(r))
      .then(() => this.maintain())
      .catch((e: unknown) => this.t.logger.warn({ err: e, issue: this.t.key }, "rollover failed; will try again on the next change"))
      .finally(() => {
        this.maintaining = null;
        if (this.maintainAgain) {
          this.maintainAgain = false;
          this.schedule();
        }
      });
  }

  /** The upkeep running or queued last: runs never overlap. */
  private queue: Promise<void> = Promise.resolve();

  /**
   * Run the writer's upkeep: rollover (and carrying), then health compaction when due. After the run
   * already going, never beside it: the timer and a change both call this, and two overlapping runs
   * each found no successor and rolled the issue over twice (two open heads, the fleet suite's
   * schedule 10).
   */
  maintain(): Promise<void> {
    const run = this.queue.then(() => this.maintainNow());
    // The caller gets the run's error; the queue only keeps the order.
    this.queue = run.catch(() => {});
    return run;
  }

  private async maintainNow(): Promise<void> {
    const o = this.t;
    const { projection } = o;
    const fence = o.lease.current();
    if (!fence || this.stopped) return;
    const snap = projection.snapshot();
    if (this.quiet(fence.token, snap.comments)) return;
    await rollOverIfDue(
      {
        ...o.rollover,
        api: o.api,
        store: o.store,
        repo: o.repo,
        issue: o.issue,
        logger: o.logger,
        selfLogin: o.selfLogin,
        ...(o.policy.signingKey !== undefined ? { signingKey: o.policy.signingKey } : {}),
        policy: o.policy,
        lateCarry: this.lateCarry,
      },
      fence,
      snap,
    );
    if (this.lateCarryDue && o.meta.meta.predecessor !== undefined) {
      this.lateCarryDue = false;
      await carryLateSaves({
        api: o.api,
        store: o.store,
        repo: o.repo,
        issue: o.issue,
        policy: o.policy,
        selfLogin: o.selfLogin,
        logger: o.logger,
        entries: projection.snapshot().entries,
        heldBy: this.lateCarryHeldBy,
        ...(o.readWindowSize ? { readWindowSize: o.readWindowSize } : {}),
      }).catch((e: unknown) => {
        this.lateCarryDue = true;
        o.logger.warn({ err: e, issue: this.t.key }, "checking the closed predecessor for late saves failed; will try again");
      });
    }
    const { retentionMs, intervalMs } = o.compaction;
    if (retentionMs > 0 && this.t.now().getTime() - this.lastCompactionAt >= intervalMs) await this.compact();
    await this.refreshMeta();
    this.metaRead = { token: fence.token, atMs: this.t.now().getTime() };
  }

  /**
   * Nothing for this run to do, known without reading the store: the meta was read under the lease held
   * now, less than META_TRUST_MS ago, and holds no successor; the issue is below the rollover threshold;
   * no late carry and no compaction is due. Such a run read the meta twice (the rollover check, then the
   * refresh) and changed nothing: 0.45 statements a delivery in the bench (docs/benchmarks.md). While
   * this process holds the lease the meta's writers are this process's (rollover, compaction, the control
   * desk through the cell, each refreshing it); the one other, the predecessor's writer recording
   * `predecessor` here, is seen within META_TRUST_MS, and a new lease (a takeover) reads it at once.
   */
  private quiet(token: number, comments: number): boolean {
    const o = this.t;
    const nowMs = o.now().getTime();
    const read = this.metaRead;
    if (!read || read.token !== token || nowMs - read.atMs >= META_TRUST_MS) return false;
    const m = o.meta.meta;
    if (m.successor !== undefined || (o.rollover.rolloverAt > 0 && comments >= o.rollover.rolloverAt)) return false;
    if (this.lateCarryDue && m.predecessor !== undefined) return false;
    const { retentionMs, intervalMs } = o.compaction;
    return !(retentionMs > 0 && nowMs - this.lastCompactionAt >= intervalMs);
  }

  /** Resolves when scheduled upkeep (rollover, carrying) is done. */
  async maintained(): Promise<void> {
    while (this.maintaining) await this.maintaining;
  }

  refreshMeta(): Promise<void> {
    return this.t.meta.refresh();
  }

  /**
   * Archive and delete this issue's superseded health signals older than the
   * retention (writer only). `dryRun` reports what would go and changes nothing.
   */
  async compact(opts: { dryRun?: boolean } = {}): Promise<CompactionResult | null> {
    const o = this.t;
    const { storeKey } = o;
    const fence = o.lease.current();
    if (!fence) return null;
    // Nowhere to archive on this host: compaction is off, said once (ArchivesOffError says it to the CLI).
    if (!o.api.capabilities.attachments) {
      if (!this.saidArchivesOff) o.logger.info({ issue: this.t.key }, "the issue host has no attachment API: health compaction, which archives before it deletes, is off");
      this.saidArchivesOff = true;
      return null;
    }
    this.lastCompactionAt = this.t.now().getTime();
    // Page by page into a bounded projection: never every stored body at once.
    const selector = supersededHealthSelector(o.policy, this.t.now().getTime(), o.compaction.retentionMs);
    for (let afterId = 0; ; ) {
      const page = await o.store.comments(storeKey, { afterId, limit: STORE_PAGE });
      const records: CommentRecord[] = [];
      for (const c of page)
        if (c.body !== null && !c.deleted) records.push({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt, ...(c.htmlUrl ? { htmlUrl: c.htmlUrl } : {}) });
      selector.add(records);
      const last = page[page.length - 1];
      if (!last || page.length < STORE_PAGE) break;
      afterId = last.id;
    }
    const selected = selector.selected();
    if (!selected.length) return { selected: 0, deleted: 0, archive: null, dryRun: Boolean(opts.dryRun) };
    await o.store.checkFence(fence);
    const result = await compactHealth({
      api: o.api,
      repo: o.repo,
      issue: o.issue,
      selected,
      dryRun: Boolean(opts.dryRun),
      now: this.t.now,
      ...(o.policy.signingKey !== undefined ? { signingKey: o.policy.signingKey } : {}),
    });
    if (!result.dryRun) {
      const prev = (await o.store.issueMeta(storeKey)).compaction;
      await o.store.updateIssueMeta(fence, storeKey, {
        compaction: {
          deleted: (prev?.deleted ?? 0) + result.deleted,
          archived: (prev?.archived ?? 0) + result.selected,
          ...(result.archive ? { archiveUrl: result.archive.url } : prev?.archiveUrl ? { archiveUrl: prev.archiveUrl } : {}),
          lastRunAt: this.t.now().toISOString(),
        },
      });
      o.logger.info({ issue: this.t.key, deleted: result.deleted, archive: result.archive?.name }, "compacted superseded health signals");
      await this.refreshMeta();
    }
    return result;
  }
}
