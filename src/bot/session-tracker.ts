import { systemClock } from "../clock.ts";
import { createProjection } from "../projection/index.ts";
import type { CommentEvent, CommentRecord, LivenessState, LivenessTransition, Projection } from "../projection/index.ts";
import { bodyEditKey, controlBoxesOf, renderDashboard, renderResumeIndex, resumeIndexScope } from "../dashboard/index.ts";
import type { RenderDashboardOptions, ResumeIndexRef, UnconfirmedChange } from "../dashboard/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../session-client/index.ts";
import { DashboardWriter } from "./upkeep/dashboard-writer.ts";
import { ControlDesk } from "./controls/control-desk.ts";
import { findChainRewindTarget } from "./controls/chain-rewind-target.ts";
import type { CompactionResult } from "../compaction/compact-health.ts";
import type { StoredComment } from "../bot-state/index.ts";
import { issueKey, parseSealedState } from "../bot-state/index.ts";
import { AnomalyLog } from "./anomaly-log.ts";
import type { BodyEditor } from "./controls/control-desk.ts";
import { DEFAULT_DASHBOARD_HOLD_MS } from "./upkeep/dashboard-writer.ts";
import { controlStates, controlTouches, restoreControls } from "./controls/control-restore.ts";
import { EntryPersistence } from "./ingest/entry-persistence.ts";
import { LivenessAlerts } from "./alerts/liveness-alerts.ts";
import { forEachStored, readHistory } from "./ingest/stored-comments.ts";
import type { TrackerContext, TrackerOptions } from "./tracker-context.ts";
import { TrackerUpkeep } from "./upkeep/tracker-upkeep.ts";

export type { TrackerOptions } from "./tracker-context.ts";

/**
 * Records the bot keeps in memory per agent+session (see ProjectionOptions.hotRecords): enough that
 * an edit or delete of a recent checkpoint or health signal is folded from memory; older ones are read
 * back from the store when needed. Memory is then per entry, not per comment.
 */
export const HOT_RECORDS = 16;
/**
 * The bot's first read of an issue runs the slash commands of comments created
 * at most this long before it (a command posted while the bot was starting);
 * older ones are history: claimed as seen, never run.
 */
export const COMMAND_GRACE_MS = 10 * 60_000;

/**
 * One watched session issue: its live projection, its dashboard writer, its
 * poll watermark and its agents' liveness. Every source of comments (webhook,
 * poll, reconcile) goes through `apply`, which stores the events first
 * (deduped by delivery id and comment version) and then folds them; both are
 * idempotent, so the same comment seen twice changes nothing. Forgejo-visible
 * writes (dashboard, alerts) are made only while this process holds the lease.
 *
 * Its parts: stored-comments.ts (store paging, history read back), control-restore.ts
 * (lost [CONTROL] effects recorded again), liveness-alerts.ts, entry-persistence.ts
 * (entries and folded state to the store), tracker-upkeep.ts (rollover, late saves, compaction).
 */
export class SessionTracker implements TrackerContext {
  readonly projection: Projection;
  readonly dashboard: DashboardWriter;
  /** People's commands (slash comments, dashboard checkboxes) → [CONTROL] comments. */
  readonly controls: ControlDesk;
  /** Newest `updated_at` seen (ms), for the next incremental poll. */
  private pollFromMs = 0;
  readonly now: () => Date;

  /** The store's key of this issue. */
  readonly storeKey: string;

  private readonly alerts: LivenessAlerts;
  private readonly entries: EntryPersistence;
  private readonly upkeep: TrackerUpkeep;

  constructor(readonly o: TrackerOptions) {
    this.projection = createProjection(o.policy, { hotRecords: HOT_RECORDS });
    this.now = o.now ?? systemClock;
    this.storeKey = issueKey(o.repo, o.issue);
    this.alerts = new LivenessAlerts(this);
    this.entries = new EntryPersistence(this, o.anomalyLog ?? new AnomalyLog());
    this.upkeep = new TrackerUpkeep(this);
    this.dashboard = new DashboardWriter({
      mayWrite: () => o.lease.holds(),
      ...(o.fencedWrite ? { fencedWrite: o.fencedWrite } : {}),
      api: o.api,
      repo: o.repo,
      issue: o.issue,
      minIntervalMs: o.dashboardIntervalMs,
      holdMs: o.dashboardHoldMs ?? DEFAULT_DASHBOARD_HOLD_MS,
      logger: o.logger,
      metrics: o.metrics,
      render: (ref) => this.renderSection(ref),
      resumeIndex: {
        render: () => renderResumeIndex(this.projection.snapshot(), this.indexOptions()),
        selfLogin: o.selfLogin,
        ...(o.resumeIndexInlineMaxBytes !== undefined ? { inlineMaxBytes: o.resumeIndexInlineMaxBytes } : {}),
      },
      // The body changed since our last write and no webhook told us: a person's edit seen by this read.
      onForeignEdit: (body, poster, updatedAt) => this.onPolledBody(body, poster, updatedAt),
      onWritten: (body) => {
        this.knownBody = body;
        void this.rememberBody(body);
      },
    });
    this.controls = new ControlDesk({
      api: o.api,
      repo: o.repo,
      issue: o.issue,
      projection: this.projection,
      selfLogin: o.selfLogin,
      ...(o.policy.signingKey !== undefined ? { signingKey: o.policy.signingKey } : {}),
      logger: o.logger,
      metrics: o.metrics,
      now: this.now,
      applyOwn: (c) => void this.apply([{ type: "upsert", comment: toCommentRecord(c) }]),
      refreshDashboard: async () => {
        this.dashboard.markDirty();
        await this.dashboard.flush();
      },
      dashboardChanged: () => this.dashboard.markDirty(),
      store: o.store,
      storeKey: this.storeKey,
      chainTarget: (agent, session, target) => findChainRewindTarget({ store: o.store, repo: o.repo, issue: o.issue, policy: o.policy }, agent, session, target),
      unconfirmed: (changes) => {
        const have = this.upkeep.meta.unconfirmed ?? [];
        const key = (c: UnconfirmedChange) => JSON.stringify([c.action, c.agent, c.session, c.target ?? null]);
        const known = new Set(have.map(key));
        return this.storeUnconfirmed([...have, ...changes.filter((c) => !known.has(key(c)))].slice(-200));
      },
      commanded: async (agent, session) => {
        const have = this.upkeep.meta.unconfirmed ?? [];
        const left = have.filter((c) => c.agent !== agent || c.session !== session);
        if (left.length === have.length) return;
        await this.storeUnconfirmed(left);
        this.dashboard.markDirty();
      },
    });
  }

  /**
   * Keep the unconfirmed box changes (IssueMeta.unconfirmed) in the store, so the dashboard line outlives a
   * restart and a replica that takes over shows it too; without the lease, in memory only (the writer keeps them).
   */
  private async storeUnconfirmed(unconfirmed: UnconfirmedChange[]): Promise<void> {
    const fence = this.o.lease.current();
    if (fence) {
      try {
        this.upkeep.meta = await this.o.store.updateIssueMeta(fence, this.storeKey, { unconfirmed });
        return;
      } catch (e) {
        this.o.logger.warn({ err: e, issue: this.key }, "storing the unconfirmed box changes failed; the dashboard shows them until this process stops (the reply comment names them too)");
      }
    }
    this.upkeep.meta = { ...this.upkeep.meta, unconfirmed };
  }

  /** The issue body as last seen or written by this process (null: not read yet), to notice people's edits when polling. */
  private knownBody: string | null = null;
  /**
   * The control boxes of the last body seen, as the store keeps them (IssueMeta.boxesSeen, see
   * controlBoxesOf): a restart diffs the body it first reads against them, so a box ticked while the
   * bot was down is seen (issue 28.4). null: nothing stored (a first start on this issue).
   */
  private boxesSeen: string | null = null;
  /** Set during the first read of an issue the store never held: older commands are history (COMMAND_GRACE_MS). */
  private commandBaselineBeforeMs: number | null = null;

  /**
   * A person's edit of the body: hold dashboard writes, act on changed control
   * boxes. `before` is the body they edited (a webhook's `changes.body.from`),
   * else the body this process last knew.
   */
  async onHumanBodyEdit(before: string | null, after: string, editor: BodyEditor, editedAt: string | null = null): Promise<void> {
    const prev = before ?? this.knownBody ?? this.boxesSeen;
    this.knownBody = after;
    this.dashboard.noteHumanEdit(after);
    // Stored before the boxes act: a restart after this point diffs against this body, never runs the edit again.
    await this.rememberBody(after);
    if (prev !== null) await this.controls.onBodyEdit(prev, after, editor, bodyEditKey(editedAt, after));
  }

  /**
   * An `issues.edited` delivery that names no body change (a title edit, an attachment upload): the
   * body is compared with the last one seen, as a poll does; the sender edited something else, so the
   * editor of any body change found is unknown. `poster` null: the payload named none (a poll diffs later).
   */
  async onBodyDelivered(body: string, poster: string | null, updatedAt: string | null): Promise<void> {
    if (body === this.knownBody) return;
    if (poster === null) return;
    await this.onPolledBody(body, poster, updatedAt);
  }

  /** A body read by a poll, before a dashboard write, or by a delivery that named no body change. */
  private async onPolledBody(body: string, poster: string, updatedAt: string | null): Promise<void> {
    if (body === this.knownBody) return;
    // The bot's own write read back before it returned (or another replica's): not a person's edit.
    if (this.dashboard.isOwnBody(body)) {
      this.knownBody = body;
      await this.rememberBody(body);
      return;
    }
    if (this.knownBody === null) {
      // The first read of this process. With the boxes of the last body seen in the store, a change since
      // was made while the bot was down (both modes: Forgejo does not redeliver what failed meanwhile).
      const stored = this.boxesSeen;
      if (stored !== null && controlBoxesOf(body) !== stored) return this.onHumanBodyEdit(stored, body, { whileDownOnIssuePostedBy: poster }, updatedAt === null ? null : `down:${updatedAt}`);
      this.knownBody = body;
      await this.rememberBody(body);
      return;
    }
    await this.onHumanBodyEdit(null, body, { unknownEditorOfIssuePostedBy: poster }, updatedAt);
  }

  /** Keep the boxes of a body seen (or written) in the store, when they changed and this process is the issue's writer. */
  private async rememberBody(body: string): Promise<void> {
    const boxes = controlBoxesOf(body);
    if (boxes === this.boxesSeen) return;
    const fence = this.o.lease.current();
    if (!fence) return; // the writer keeps it; a follower that becomes the writer reads it from the store
    try {
      await this.o.store.updateIssueMeta(fence, this.storeKey, { boxesSeen: boxes });
      this.boxesSeen = boxes;
    } catch (e) {
      // A lease lost meanwhile, or the store down: the next body seen stores it again; the command path goes on.
      this.o.logger.warn({ err: e, issue: this.key }, "storing the control boxes of the body last seen failed; the next read stores them");
    }
  }

  /**
   * Polling: read the body too, so ticks work without webhooks. Also run on its own, more often than the
   * comments are polled (CHECKPOST_BODY_POLL_INTERVAL_MS), so a person's tick is recorded within seconds.
   */
  async pollBody(): Promise<void> {
    const issue = await this.o.api.getIssue(this.o.repo, this.o.issue);
    await this.onPolledBody(issue.body, issue.author, issue.updatedAt);
  }

  /** People's slash commands in comments the store took as new (a first sight, by whatever path): each claimed once in the store. */
  private async runCommands(changed: readonly CommentEvent[]): Promise<void> {
    for (const e of changed) {
      if (e.type !== "upsert" || !e.comment.body.includes("/checkpost")) continue;
      const c = e.comment;
      const baseline = this.commandBaselineBeforeMs !== null && Date.parse(c.createdAt) < this.commandBaselineBeforeMs;
      await this.controls.onComment({ id: c.id, body: c.body, author: c.author }, { baseline });
    }
  }

  /** Signing and legacy-writer policy of the resume index. */
  private indexOptions(): Pick<RenderDashboardOptions, "resumeIndexSigning" | "legacyWriters"> {
    const o = this.o;
    return {
      ...(o.policy.signingKey ? { resumeIndexSigning: { key: o.policy.signingKey, scope: resumeIndexScope(o.repo.owner, o.repo.repo, o.issue) } } : {}),
      ...(o.policy.legacyWriters ? { legacyWriters: o.policy.legacyWriters } : {}),
    };
  }

  /** The dashboard section as it would be written now (`ref`: pointing at the index comment instead of holding the index). */
  renderSection(ref?: ResumeIndexRef | null): string {
    const o = this.o;
    const meta = this.upkeep.meta;
    return renderDashboard(this.projection.snapshot(), this.now(), {
      liveness: o.liveness,
      ...o.dashboard,
      retention: {
        comments: this.projection.snapshot().comments,
        rolloverAt: o.rollover.rolloverAt,
        healthRetentionMs: o.compaction.retentionMs,
        ...(meta.predecessor !== undefined ? { predecessor: meta.predecessor } : {}),
        ...(meta.successor !== undefined ? { successor: meta.successor } : {}),
        ...(meta.compaction ? { compaction: meta.compaction } : {}),
      },
      ...(meta.unconfirmed?.length ? { unconfirmed: meta.unconfirmed } : {}),
      ...this.indexOptions(),
      ...(ref !== undefined ? { resumeIndexRef: ref } : {}),
    });
  }

  get key(): string {
    return `${this.o.repo.owner}/${this.o.repo.repo}#${this.o.issue}`;
  }

  /**
   * Store events (one delivery's, or a read's with `deliveryId` null), then fold
   * them; mark the dashboard dirty when the projection changed. All of them are
   * folded, not only what the store took as new: another process on the same
   * store may have stored them first, and the projection ignores what it holds.
   */
  async apply(events: CommentEvent[], deliveryId: string | null = null): Promise<boolean> {
    // Read before the store takes the batch: what each of the bot's records was when it recorded it.
    const touched = await controlTouches(this.o.selfLogin, events, (ids) => this.o.store.comments(this.storeKey, { ids, bodies: false }));
    const before = touched.size ? controlStates(this.projection) : null;
    const stored = await this.o.store.applyDelivery(this.storeKey, deliveryId, events);
    this.asOf = this.now();
    for (const e of events) if (e.type === "upsert") this.noteComment(e.comment);
    const changed = this.projection.applyAll(events);
    await readHistory(this);
    if (changed) this.afterChange();
    // Before the batch's commands run: `after` must be this batch's fold alone, or a command's own
    // record (an unpause) would look like a lost effect and be undone (issue 28.1).
    if (before && changed) await restoreControls(this, this.controls, before, touched, stored.changed);
    // Commands only from what the store took as new: a redelivered, replayed or re-read comment is not (and its id is claimed anyway).
    await this.runCommands(stored.changed);
    return changed;
  }

  /**
   * Fold events another replica stored (the shared store's change feed):
   * nothing is stored again, the projection ignores what it already holds.
   */
  fold(events: CommentEvent[]): boolean {
    this.asOf = this.now();
    for (const e of events) if (e.type === "upsert") this.noteComment(e.comment);
    const changed = this.projection.applyAll(events);
    if (changed) this.afterChange();
    if (this.projection.historyNeeded().length)
      void readHistory(this).then(
        () => this.afterChange(),
        (e: unknown) => this.o.logger.warn({ err: e, issue: this.key }, "reading entry history from the store failed; the next change retries"),
      );
    return changed;
  }

  /**
   * The first read of a process: from the store when it holds this issue (a
   * restart: fold the stored comments, then one incremental read from the
   * stored watermark), else a full read from Forgejo.
   */
  async start(): Promise<"store" | "forgejo"> {
    this.upkeep.meta = await this.o.store.issueMeta(this.storeKey);
    this.boxesSeen = this.upkeep.meta.boxesSeen ?? null;
    const watermark = await this.o.store.watermark(this.storeKey);
    const state = watermark ? await this.o.store.projectionState(this.storeKey) : null;
    const sealed = state === null ? null : parseSealedState(state);
    if (state !== null && !(sealed && this.projection.restoreSealed(sealed)))
      this.o.logger.info({ issue: this.key }, "stored projection state not usable (another trust policy or version): parsing every stored comment");
    const restore = (c: StoredComment) => {
      this.projection.restore(c);
      if (c.body !== null && !c.deleted) this.noteComment({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt });
    };
    // With a usable state, folded comments are taken without their bodies; the bot's own comments are read whole (its alert keys).
    const self = this.o.selfLogin.toLowerCase();
    // (pollFromMs needs nothing from claimed comments: it starts at the stored watermark below.)
    const claim = (c: StoredComment) => c.author.toLowerCase() !== self && this.projection.claimFolded(c);
    const stored = watermark ? await forEachStored(this, restore, sealed ? { claim } : {}) : 0;
    this.projection.restoreDone();
    if (!stored || !watermark) {
      this.commandBaselineBeforeMs = this.now().getTime() - COMMAND_GRACE_MS;
      try {
        await this.reconcile();
      } finally {
        this.commandBaselineBeforeMs = null;
      }
      return "forgejo";
    }
    await readHistory(this);
    this.pollFromMs = Math.max(this.pollFromMs, watermark.updatedAtSecond * 1000);
    await this.poll();
    this.upkeep.lateCarryDue = true;
    this.afterChange();
    return "store";
  }

  /** Full re-read: the only way to notice deletions without webhooks. */
  async reconcile(): Promise<boolean> {
    // Only comments this tracker held before the listing began can be judged deleted by it: one stored
    // meanwhile (another replica's write to the shared store, the bot's own carried copy, a delivery) may
    // have been created after the listing read its page (the fleet suite: a successor's carried copies
    // tombstoned by a follower's first read). A later reconcile judges those.
    const judgedUpTo = this.projection.watermark();
    // Folded response by response: the whole list is never held (50k comments are ~80 MiB of JSON).
    const listed = new Set<number>();
    let changed = false;
    let folding = Promise.resolve();
    await forEachCommentBatch(
      this.o.api,
      this.o.repo,
      this.o.issue,
      (batch) => {
        const events: CommentEvent[] = batch.map((c) => {
          listed.add(c.id);
          return { type: "upsert", comment: toCommentRecord(c) };
        });
        folding = folding.then(async () => void (changed = (await this.apply(events)) || changed));
        // Awaited by the reader: it reads no further ahead than this batch (see forEachCommentBatch).
        return folding;
      },
      this.o.readWindowSize ? { windowSize: this.o.readWindowSize } : {},
    );
    await folding;
    const gone: CommentEvent[] = [];
    await forEachStored(
      this,
      (c) => {
        if (!c.deleted && !listed.has(c.id) && c.id <= judgedUpTo) gone.push({ type: "delete", commentId: c.id });
      },
      { bodies: false },
    );
    if (gone.length) changed = (await this.apply(gone)) || changed;
    // Anything the projection held but the store did not (it cannot happen unless the store was cleared under us).
    changed = this.projection.retainOnly(listed, judgedUpTo) || changed;
    // Saves on the closed predecessor since: checked on start and on every reconcile (maintain does it).
    this.upkeep.lateCarryDue = true;
    await this.pollBody();
    if (changed) this.afterChange();
    else this.upkeep.schedule();
    return changed;
  }

  /**
   * Incremental read. `since` filters on updated_at in whole seconds, so the
   * boundary second is read again; the store ignores what it already holds.
   */
  async poll(): Promise<boolean> {
    if (this.pollFromMs === 0) return this.reconcile();
    const comments = await this.o.api.listComments(this.o.repo, this.o.issue, { sinceMs: this.pollFromMs });
    const changed = await this.apply(comments.map((comment) => ({ type: "upsert", comment: toCommentRecord(comment) })));
    await this.pollBody();
    return changed;
  }

  /** Re-evaluate liveness; returns the transitions (each logged, shown and alerted once). */
  checkLiveness(): Promise<LivenessTransition[]> {
    return this.alerts.check();
  }

  livenessStates(): Readonly<Record<string, LivenessState>> {
    return this.alerts.current();
  }

  /** Write what the projection folded away, so the next start parses only the newest comments. */
  storeSealedState(): Promise<void> {
    return this.entries.storeSealedState();
  }

  stop(): void {
    this.upkeep.stopped = true;
    this.dashboard.stop();
  }

  /** Resolves when the entries changed so far are in the store. */
  entriesStored(): Promise<void> {
    return this.entries.stored();
  }

  private noteComment(c: CommentRecord): void {
    const t = Date.parse(c.updatedAt);
    if (t > this.pollFromMs) this.pollFromMs = t;
    this.alerts.noteComment(c);
  }

  /** Kept off the delivery hot path: gauges are refreshed when /metrics is scraped; entries are stored once per turn of the event loop. */
  private afterChange(): void {
    this.dashboard.markDirty();
    this.entries.persist();
    this.upkeep.schedule();
  }

  /** Run the writer's upkeep now: rollover (and carrying), then health compaction when due. */
  maintain(): Promise<void> {
    return this.upkeep.maintain();
  }

  /**
   * When this process last read the issue from Forgejo, or stored or folded a delivery or another replica's
   * events: the projection holds everything up to then (the freshness of /api/resume).
   */
  asOf: Date | null = null;
  /** The issue that continues this one, once rolled over (as last read from the store). */
  get successor(): number | undefined {
    return this.upkeep.meta.successor;
  }

  /**
   * Replicas: a follower's upkeep does not run (maintain() is the writer's), so it learns of a rollover
   * from the shared store, where the leader recorded the link, and watches the successor too.
   */
  async followRollover(): Promise<void> {
    if (this.upkeep.stopped) return;
    await this.upkeep.refreshMeta();
    if (this.upkeep.meta.successor !== undefined) await this.o.rollover.track(this.upkeep.meta.successor);
  }

  /**
   * Archive and delete this issue's superseded health signals older than the
   * retention (writer only). `dryRun` reports what would go and changes nothing.
   */
  compact(opts: { dryRun?: boolean } = {}): Promise<CompactionResult | null> {
    return this.upkeep.compact(opts);
  }

  /** Resolves when scheduled upkeep (rollover, carrying) is done. */
  maintained(): Promise<void> {
    return this.upkeep.maintained();
  }

  /** Refresh this issue's gauges (called by the /metrics handler). */
  updateGauges(): void {
    const snap = this.projection.snapshot();
    this.o.metrics.comments.set({ issue: this.key }, snap.comments);
    this.o.metrics.anomalies.set({ issue: this.key }, snap.anomalies.length);
  }
}
