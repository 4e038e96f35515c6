import type { HostComment, RepoRef } from "../ports/issue-host.ts";
import type { CommentEvent, CommentRecord, LivenessState, LivenessTransition, Projection } from "../projection/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../session-client/index.ts";
import type { CompactionResult } from "../compaction/compact-health.ts";
import type { StoredComment } from "../bot-state/index.ts";
import { restoreStoredState } from "../bot-state/index.ts";
import type { DashboardWriter } from "./upkeep/dashboard-writer.ts";
import type { BodyEditor, ControlDesk } from "./controls/control-desk.ts";
import type { BodyWatch } from "./controls/body-watch.ts";
import { controlStates, controlTouches, restoreControls } from "./controls/control-restore.ts";
import type { EntryPersistence } from "./ingest/entry-persistence.ts";
import type { LivenessAlerts } from "./alerts/liveness-alerts.ts";
import { forEachStored, readHistory } from "./ingest/stored-comments.ts";
import type { IssueMetaCell } from "./upkeep/issue-meta.ts";
import type { TrackerUpkeep } from "./upkeep/tracker-upkeep.ts";
import type { IssueLease } from "./replicas/issue-lease.ts";
import type { WatchedIssue } from "./tracker-ports.ts";
import type { TrackerParts, TrackerPorts } from "./tracker-parts.ts";
import type { ReadClaimCell } from "./ingest/read-claim.ts";

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
 * It is assembled from parts by createSessionTracker (assemble-tracker.ts), and only drives them: no
 * part holds the tracker or calls back into it (docs/architecture.md, "The tracker and its parts").
 * The parts: stored-comments.ts (store paging, history read back), control-restore.ts (lost [CONTROL]
 * effects recorded again), body-watch.ts (people's body edits), liveness-alerts.ts,
 * entry-persistence.ts (entries and folded state to the store), issue-meta.ts (the store's
 * bookkeeping), tracker-upkeep.ts (rollover, late saves, compaction).
 */
export class SessionTracker implements WatchedIssue {
  readonly projection: Projection;
  readonly dashboard: DashboardWriter;
  /** People's commands (slash comments, dashboard checkboxes) → [CONTROL] comments. */
  readonly controls: ControlDesk;
  /** Newest `updated_at` seen (ms), for the next incremental poll. */
  private pollFromMs = 0;
  /** See ReadClaim: shared with the dashboard section, which writes it into the resume index. */
  private readonly claim: ReadClaimCell;

  /** See ReadClaim (0: no claim). */
  get completeBeforeMs(): number {
    return this.claim.ms;
  }
  readonly now: () => Date;
  readonly repo: RepoRef;
  readonly issue: number;
  readonly key: string;
  /** The store's key of this issue. */
  readonly storeKey: string;
  readonly lease: IssueLease;

  private readonly body: BodyWatch;
  private readonly meta: IssueMetaCell;
  private readonly alerts: LivenessAlerts;
  private readonly entries: EntryPersistence;
  private readonly upkeep: TrackerUpkeep;

  constructor(
    private readonly o: TrackerPorts,
    parts: TrackerParts,
  ) {
    this.projection = parts.projection;
    this.dashboard = parts.dashboard;
    this.controls = parts.controls;
    this.body = parts.body;
    this.meta = parts.meta;
    this.alerts = parts.alerts;
    this.entries = parts.entries;
    this.upkeep = parts.upkeep;
    this.claim = parts.claim;
    this.now = o.now;
    this.repo = o.repo;
    this.issue = o.issue;
    this.key = o.key;
    this.storeKey = o.storeKey;
    this.lease = o.lease;
    // The control desk's own records, folded at once (the webhook for them may come later or never).
    parts.ownComments.listen((c: HostComment) => void this.apply([{ type: "upsert", comment: toCommentRecord(c) }]));
  }

  /** Set during the first read of an issue the store never held: older commands are history (COMMAND_GRACE_MS). */
  private commandBaselineBeforeMs: number | null = null;

  /** A person's edit of the body (see BodyWatch). */
  onHumanBodyEdit(before: string | null, after: string, editor: BodyEditor, editedAt: string | null = null): Promise<void> {
    return this.body.onHumanBodyEdit(before, after, editor, editedAt);
  }

  /** An `issues.edited` delivery that names no body change (see BodyWatch). */
  onBodyDelivered(body: string, poster: string | null, updatedAt: string | null): Promise<void> {
    return this.body.onBodyDelivered(body, poster, updatedAt);
  }

  /** Polling: read the body too, so ticks work without webhooks (see BodyWatch). */
  pollBody(): Promise<void> {
    return this.body.pollBody();
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
    await readHistory(this.history);
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
      void readHistory(this.history).then(
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
    this.body.restore((await this.meta.load()).boxesSeen ?? null);
    const watermark = await this.o.store.watermark(this.storeKey);
    const restored = watermark ? restoreStoredState(this.projection, await this.o.store.projectionState(this.storeKey)) : "none";
    if (restored === "unusable") this.o.logger.info({ issue: this.key }, "stored projection state not usable (another trust policy or version): parsing every stored comment");
    const restore = (c: StoredComment) => {
      this.projection.restore(c);
      if (c.body !== null && !c.deleted) this.noteComment({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt });
    };
    // With a usable state, folded comments are taken without their bodies; the bot's own comments are read whole (its alert keys).
    const self = this.o.selfLogin.toLowerCase();
    // (pollFromMs needs nothing from claimed comments: it starts at the stored watermark below.)
    const claim = (c: StoredComment) => c.author.toLowerCase() !== self && this.projection.claimFolded(c);
    const stored = watermark ? await forEachStored(this.o, restore, restored === "restored" ? { claim } : {}) : 0;
    this.projection.restoreDone();
    if (!stored || !watermark) {
      this.commandBaselineBeforeMs = this.now().getTime() - COMMAND_GRACE_MS;
      try {
        await this.reconcile();
      } finally {
        this.commandBaselineBeforeMs = null;
      }
      if (await this.claim.waitPastSecond(this.pollFromMs)) await this.poll();
      return "forgejo";
    }
    await readHistory(this.history);
    this.pollFromMs = Math.max(this.pollFromMs, watermark.updatedAtSecond * 1000);
    // The restart takes the store as complete before its watermark's second (it reads only since then), as the index's watermark does.
    this.claim.restartAt(watermark.updatedAtSecond * 1000);
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
    const sentAtMs = await forEachCommentBatch(
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
    // Every comment is now folded (the last request listed up to when it was sent).
    this.claim.note(0, sentAtMs);
    const gone: CommentEvent[] = [];
    await forEachStored(
      this.o,
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
    const fromMs = this.claim.pollFrom(this.pollFromMs);
    const sentAtMs = this.claim.sentAt();
    const comments = await this.o.api.listCommentsSince(this.o.repo, this.o.issue, { sinceMs: fromMs });
    const changed = await this.apply(comments.map((comment) => ({ type: "upsert", comment: toCommentRecord(comment) })));
    this.claim.note(fromMs, sentAtMs);
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
    return this.meta.meta.successor;
  }

  /**
   * Replicas: a follower's upkeep does not run (maintain() is the writer's), so it learns of a rollover
   * from the shared store, where the leader recorded the link, and watches the successor too.
   */
  async followRollover(): Promise<void> {
    if (this.upkeep.stopped) return;
    await this.meta.refresh();
    const successor = this.meta.meta.successor;
    if (successor !== undefined) await this.o.track(successor);
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

  /** What readHistory uses: the store, the projection, the names. */
  private get history() {
    return { store: this.o.store, storeKey: this.storeKey, projection: this.projection, logger: this.o.logger, key: this.key };
  }

  /** Refresh this issue's gauges (called by the /metrics handler). */
  updateGauges(): void {
    const snap = this.projection.snapshot();
    this.o.metrics.comments.set({ issue: this.key }, snap.comments);
    this.o.metrics.anomalies.set({ issue: this.key }, snap.anomalies.length);
  }
}
