import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import { createProjection, detectTransitions, entryKey, liveness } from "../projection/index.ts";
import type { AgentEntry, CommentEvent, CommentRecord, LivenessOptions, LivenessState, LivenessTransition, Projection, TrustPolicy } from "../projection/index.ts";
import { renderDashboard, renderResumeIndex, resumeIndexScope } from "../dashboard/index.ts";
import type { RenderDashboardOptions, ResumeIndexRef } from "../dashboard/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../store/index.ts";
import { DashboardWriter } from "./dashboard-writer.ts";
import { ControlDesk } from "./control-desk.ts";
import type { BotMetrics } from "./bot-metrics.ts";
import { alertBody, parseAlert } from "./stale-alert.ts";
import type { IssueLease } from "./issue-lease.ts";
import { carryLateSaves, rollOverIfDue } from "./issue-rollover.ts";
import { compactHealth } from "../compaction/compact-health.ts";
import type { CompactionResult } from "../compaction/compact-health.ts";
import { supersededHealthSelector } from "../compaction/select-superseded-health.ts";
import type { RolloverDeps } from "./issue-rollover.ts";
import type { BotState, IssueMeta, StoredComment } from "../projection-store/index.ts";
import { isProtocolBody, issueKey, parseSealedState } from "../projection-store/index.ts";
import { AnomalyLog } from "./anomaly-log.ts";
import type { BodyEditor } from "./control-desk.ts";
import { DEFAULT_DASHBOARD_HOLD_MS } from "./dashboard-writer.ts";

/**
 * Records the bot keeps in memory per agent+session (see ProjectionOptions.hotRecords): enough that
 * an edit or delete of a recent checkpoint or health signal is folded from memory; older ones are read
 * back from the store when needed. Memory is then per entry, not per comment.
 */
export const HOT_RECORDS = 16;
/** Stored comments read per page on restart and reconcile (the bodies are never all held at once). */
const STORE_PAGE = 2000;
/**
 * The bot's first read of an issue runs the slash commands of comments created
 * at most this long before it (a command posted while the bot was starting);
 * older ones are history: claimed as seen, never run.
 */
export const COMMAND_GRACE_MS = 10 * 60_000;
/** How often (at most) the projection's folded state is written to the store, besides on stop. */
const SEALED_STATE_EVERY_MS = 60_000;

export interface TrackerOptions {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  policy: TrustPolicy;
  /** The bot's own login: its alert comments are recognised, its body edits ignored. */
  selfLogin: string;
  dashboardIntervalMs: number;
  /** Largest resume index kept in the body (default RESUME_INDEX_INLINE_MAX_BYTES); a larger one goes to the index comment. */
  resumeIndexInlineMaxBytes?: number;
  liveness: Partial<LivenessOptions>;
  staleAlerts: boolean;
  /** Dashboard options (docs link, bot URL for "How to resume", row cap). */
  dashboard?: Pick<RenderDashboardOptions, "docsUrl" | "apiUrl" | "maxRows">;
  /** See readAllComments. */
  readWindowSize?: number;
  logger: Logger;
  metrics: BotMetrics;
  now?: () => Date;
  /** Where the comments folded so far are kept: a restart continues from here. */
  store: BotState;
  /** Whether this process is the issue's one writer (dashboard, alerts). */
  lease: IssueLease;
  /** Replicas: each Forgejo write (dashboard, alert) run fenced by the lease's token (see DashboardWriter). */
  fencedWrite?: <T>(kind: string, write: () => Promise<T>) => Promise<T>;
  /** Rollover settings and how to start watching a successor. */
  rollover: Pick<RolloverDeps, "title" | "label" | "rolloverAt" | "track">;
  /** Health compaction: retention (0: off) and period. */
  compaction: { retentionMs: number; intervalMs: number };
  /** Anomalies already logged by this process (shared by its trackers); default: this tracker's own. */
  anomalyLog?: AnomalyLog;
  /** After a person's edit of the body, dashboard writes wait this long (ms) so their next tick is not stale; default DEFAULT_DASHBOARD_HOLD_MS. */
  dashboardHoldMs?: number;
}

/**
 * One watched session issue: its live projection, its dashboard writer, its
 * poll watermark and its agents' liveness. Every source of comments (webhook,
 * poll, reconcile) goes through `apply`, which stores the events first
 * (deduped by delivery id and comment version) and then folds them; both are
 * idempotent, so the same comment seen twice changes nothing. Forgejo-visible
 * writes (dashboard, alerts) are made only while this process holds the lease.
 */
export class SessionTracker {
  readonly projection: Projection;
  readonly dashboard: DashboardWriter;
  /** People's commands (slash comments, dashboard checkboxes) → [CONTROL] comments. */
  readonly controls: ControlDesk;
  /** Newest `updated_at` seen (ms), for the next incremental poll. */
  private pollFromMs = 0;
  private states: Record<string, LivenessState> = {};
  /** agent+session+lastSignalAt alerts already posted (recognised from our own comments too). */
  private readonly alerted = new Set<string>();
  private readonly now: () => Date;

  /** The store's key of this issue. */
  readonly storeKey: string;
  /** Entries as last written to the store, to write only those that changed. */
  private persisted = new Map<string, AgentEntry>();
  private persisting: Promise<void> | null = null;
  private persistAgain = false;
  private maintaining: Promise<void> | null = null;
  private maintainAgain = false;

  private readonly anomalyLog: AnomalyLog;

  constructor(readonly o: TrackerOptions) {
    this.projection = createProjection(o.policy, { hotRecords: HOT_RECORDS });
    this.anomalyLog = o.anomalyLog ?? new AnomalyLog();
    this.now = o.now ?? (() => new Date());
    this.storeKey = issueKey(o.repo, o.issue);
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
      onForeignEdit: (body, poster) => this.onPolledBody(body, poster),
      onWritten: (body) => void (this.knownBody = body),
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
    });
  }

  /** The issue body as last seen or written by this process (null: not read yet), to notice people's edits when polling. */
  private knownBody: string | null = null;
  /** Set during the first read of an issue the store never held: older commands are history (COMMAND_GRACE_MS). */
  private commandBaselineBeforeMs: number | null = null;

  /**
   * A person's edit of the body: hold dashboard writes, act on changed control
   * boxes. `before` is the body they edited (a webhook's `changes.body.from`),
   * else the body this process last knew.
   */
  async onHumanBodyEdit(before: string | null, after: string, editor: BodyEditor): Promise<void> {
    const prev = before ?? this.knownBody;
    this.knownBody = after;
    this.dashboard.noteHumanEdit(after);
    if (prev !== null) await this.controls.onBodyEdit(prev, after, editor);
  }

  /** A body read by a poll or before a dashboard write. */
  private async onPolledBody(body: string, poster: string): Promise<void> {
    if (body === this.knownBody) return;
    // First read, or the bot's own write read back before it returned: not a person's edit.
    if (this.knownBody === null || this.dashboard.isOwnBody(body)) {
      this.knownBody = body;
      return;
    }
    await this.onHumanBodyEdit(null, body, { unknownEditorOfIssuePostedBy: poster });
  }

  /** Polling: read the body too, so ticks work without webhooks. */
  private async pollBody(): Promise<void> {
    const issue = await this.o.api.getIssue(this.o.repo, this.o.issue);
    await this.onPolledBody(issue.body, issue.author);
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
    return renderDashboard(this.projection.snapshot(), this.now(), {
      liveness: o.liveness,
      ...o.dashboard,
      retention: {
        comments: this.projection.snapshot().comments,
        rolloverAt: o.rollover.rolloverAt,
        healthRetentionMs: o.compaction.retentionMs,
        ...(this.meta.predecessor !== undefined ? { predecessor: this.meta.predecessor } : {}),
        ...(this.meta.successor !== undefined ? { successor: this.meta.successor } : {}),
        ...(this.meta.compaction ? { compaction: this.meta.compaction } : {}),
      },
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
    const touched = this.controlTouches(events);
    const before = touched.size ? this.controlStates() : null;
    const stored = await this.o.store.applyDelivery(this.storeKey, deliveryId, events);
    this.asOf = this.now();
    for (const e of events) if (e.type === "upsert") this.noteComment(e.comment);
    const changed = this.projection.applyAll(events);
    await this.readHistory();
    if (changed) this.afterChange();
    // Commands only from what the store took as new: a redelivered, replayed or re-read comment is not (and its id is claimed anyway).
    await this.runCommands(stored.changed);
    if (before && changed) await this.restoreControls(before, touched, events);
    return changed;
  }

  /** Comments of this batch that may undo a control: edits of the bot's own [CONTROL] records, and deletes. */
  private controlTouches(events: readonly CommentEvent[]): Map<number, string> {
    const out = new Map<number, string>();
    const self = this.o.selfLogin.toLowerCase();
    for (const e of events) {
      if (e.type === "delete") out.set(e.commentId, "deleted");
      // Any version of the bot's own protocol comment (an edit in the second it was posted keeps updated_at): only a lost effect is restored.
      else if (e.comment.author.toLowerCase() === self && isProtocolBody(e.comment.body)) out.set(e.comment.id, `edited at ${e.comment.updatedAt}`);
    }
    return out;
  }

  private controlStates(): Map<string, AgentEntry> {
    const m = new Map<string, AgentEntry>();
    for (const e of this.projection.snapshot().entries) if (e.control) m.set(entryKey(e.agent, e.session), e);
    return m;
  }

  /**
   * Control records are immutable in effect (issue 19.7): when an edit or delete of a [CONTROL]
   * comment changed an entry's controls, the writer records the lost effect again as a new
   * [CONTROL] (the edited one stays ignored and listed as an anomaly), so the bot and every cold
   * reader (which follow the newest records) agree that the state did not change.
   */
  private async restoreControls(before: Map<string, AgentEntry>, touched: Map<number, string>, events: readonly CommentEvent[]): Promise<void> {
    if (!this.o.lease.current()) return; // the writer restores; the others fold its record
    const after = this.controlStates();
    const fresh = new Set(events.flatMap((e) => (e.type === "upsert" ? [e.comment.id] : [])));
    for (const [k, b] of before) {
      const a = after.get(k)?.control;
      const bc = b.control!;
      const restore = async (ref: NonNullable<typeof bc.paused>, action: typeof ref.action) => {
        const why = touched.get(ref.commentId) ?? "undone";
        await this.controls.restore(b.agent, b.session, { ...ref, action }, `restores [CONTROL] comment ${ref.commentId} (${why})`, `restore:${ref.commentId}:${why}`);
      };
      if (bc.paused && touched.has(bc.paused.commentId) && a?.paused?.commentId !== bc.paused.commentId) await restore(bc.paused, "pause");
      if (bc.pending && touched.has(bc.pending.commentId) && a?.pending?.commentId !== bc.pending.commentId) await restore(bc.pending, bc.pending.action);
      if (bc.hidden && touched.has(bc.hidden.commentId) && a?.hidden?.commentId !== bc.hidden.commentId) await restore(bc.hidden, "hide");
    }
    // An older pause came back: an unpause record was edited or deleted.
    for (const [k, e] of after) {
      const p = e.control?.paused;
      if (!p || fresh.has(p.commentId) || before.get(k)?.control?.paused) continue;
      const gone = [...touched.keys()].find((id) => id > p.commentId);
      if (gone === undefined) continue;
      const why = touched.get(gone) as string;
      await this.controls.restore(e.agent, e.session, { action: "unpause", by: null }, `restores the unpause of [CONTROL] comment ${gone} (${why})`, `restore:${gone}:${why}`);
    }
  }

  /**
   * The rare fallback of a bounded projection: an edit, delete or late comment
   * reached records it no longer holds, so read those entries' comments back
   * from the store (by id, only theirs) and fold them again.
   */
  private async readHistory(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const needed = this.projection.historyNeeded();
      if (!needed.length) return;
      const stored = await this.o.store.comments(this.storeKey, { ids: [...new Set(needed.flatMap((n) => n.ids))] });
      for (const n of needed) {
        const ids = new Set(n.ids);
        this.projection.hydrate(
          n.key,
          stored.filter((c) => ids.has(c.id)),
        );
      }
      this.o.logger.debug({ issue: this.key, entries: needed.length, comments: stored.length }, "read entry history back from the store");
    }
  }

  /**
   * Every stored comment, a page at a time. With `claim`, a page is read without
   * bodies and `claim` takes what needs none (folded comments); only the rest
   * are read again with their bodies (a restart: most bodies stay in the store).
   * `bodies: false` without `claim`: `fn` needs only ids, versions and tombstones.
   */
  private async forEachStored(fn: (c: StoredComment) => void, opts: { claim?: (c: StoredComment) => boolean; bodies?: false } = {}): Promise<number> {
    const { claim } = opts;
    let afterId = 0;
    let n = 0;
    for (;;) {
      const page = await this.o.store.comments(this.storeKey, { afterId, limit: STORE_PAGE, ...(claim || opts.bodies === false ? { bodies: false } : {}) });
      if (claim) {
        const rest = page.filter((c) => !claim(c)).map((c) => c.id);
        if (rest.length) for (const c of await this.o.store.comments(this.storeKey, { ids: rest })) fn(c);
      } else for (const c of page) fn(c);
      n += page.length;
      const last = page[page.length - 1];
      if (!last || page.length < STORE_PAGE) return n;
      afterId = last.id;
    }
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
      void this.readHistory().then(
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
    this.meta = await this.o.store.issueMeta(this.storeKey);
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
    const stored = watermark ? await this.forEachStored(restore, sealed ? { claim } : {}) : 0;
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
    await this.readHistory();
    this.pollFromMs = Math.max(this.pollFromMs, watermark.updatedAtSecond * 1000);
    await this.poll();
    this.lateCarryDue = true;
    this.afterChange();
    return "store";
  }

  /** Full re-read: the only way to notice deletions without webhooks. */
  async reconcile(): Promise<boolean> {
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
      },
      this.o.readWindowSize ? { windowSize: this.o.readWindowSize } : {},
    );
    await folding;
    const gone: CommentEvent[] = [];
    await this.forEachStored(
      (c) => {
        if (!c.deleted && !listed.has(c.id)) gone.push({ type: "delete", commentId: c.id });
      },
      { bodies: false },
    );
    if (gone.length) changed = (await this.apply(gone)) || changed;
    // Anything the projection held but the store did not (it cannot happen unless the store was cleared under us).
    changed = this.projection.retainOnly(listed) || changed;
    // Saves on the closed predecessor since: checked on start and on every reconcile (maintain does it).
    this.lateCarryDue = true;
    await this.pollBody();
    if (changed) this.afterChange();
    else this.scheduleMaintenance();
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
  async checkLiveness(): Promise<LivenessTransition[]> {
    const now = this.now();
    const next: Record<string, LivenessState> = {};
    // Only entries with a trusted signal have a liveness state (and so alerts and metrics): the
    // others never signalled, and may be named by anyone (issue 9). A map keeps this O(entries).
    const entries = new Map<string, AgentEntry>();
    for (const e of this.projection.snapshot().entries) {
      if (e.lastSignalAt === null) continue;
      const k = entryKey(e.agent, e.session);
      entries.set(k, e);
      next[k] = liveness(e, now, this.o.liveness).state;
    }
    const transitions = detectTransitions(this.states, next).filter((t) => t.from !== null || t.to !== "active");
    this.states = next;
    for (const t of transitions) {
      const entry = entries.get(t.key);
      this.o.metrics.transitions.inc({ to: t.to ?? "gone" });
      this.o.logger.info({ issue: this.key, agent: entry?.agent, session: entry?.session, from: t.from, to: t.to }, `agent is now ${t.to ?? "gone"}`);
      if (this.o.staleAlerts && entry && (t.to === "stale" || t.to === "silent")) {
        const alertKey = `${t.key}\u0000${t.to}\u0000${entry.lastSignalAt ?? ""}`;
        const fence = this.o.lease.current();
        // Only the lease holder alerts; recorded in the store (fenced) before posting, so no two processes post it.
        if (fence && !this.alerted.has(alertKey) && (await this.o.store.recordAlert(fence, this.storeKey, alertKey))) {
          this.alerted.add(alertKey);
          const l = liveness(entry, now, this.o.liveness);
          const to = t.to;
          const post = () => this.o.api.createComment(this.o.repo, this.o.issue, alertBody(entry, to, l, now));
          await (this.o.fencedWrite ? this.o.fencedWrite("alert", post) : post());
        }
      }
    }
    if (transitions.length) this.dashboard.markDirty();
    return transitions;
  }

  livenessStates(): Readonly<Record<string, LivenessState>> {
    return this.states;
  }

  private stopped = false;
  private sealedWrittenAt = 0;

  /** Write what the projection folded away, so the next start parses only the newest comments. */
  async storeSealedState(): Promise<void> {
    this.sealedWrittenAt = Date.now();
    await this.o.store.putProjectionState(this.storeKey, JSON.stringify(this.projection.sealedState()));
  }

  stop(): void {
    this.stopped = true;
    this.dashboard.stop();
  }

  /** Resolves when the entries changed so far are in the store. */
  async entriesStored(): Promise<void> {
    while (this.persisting) await this.persisting;
  }

  private noteComment(c: CommentRecord): void {
    const t = Date.parse(c.updatedAt);
    if (t > this.pollFromMs) this.pollFromMs = t;
    if (c.author.toLowerCase() === this.o.selfLogin.toLowerCase()) {
      const key = parseAlert(c.body);
      if (key) this.alerted.add(key);
    }
  }

  /** Kept off the delivery hot path: gauges are refreshed when /metrics is scraped; entries are stored once per turn of the event loop. */
  private afterChange(): void {
    this.dashboard.markDirty();
    this.persistEntries();
    this.scheduleMaintenance();
  }

  /** Rollover (and carrying saves that raced it), after changes, by the writer only; one run at a time. */
  private scheduleMaintenance(): void {
    if (this.maintaining) {
      this.maintainAgain = true;
      return;
    }
    this.maintaining = new Promise<void>((r) => setImmediate(r))
      .then(() => this.maintain())
      .catch((e: unknown) => this.o.logger.warn({ err: e, issue: this.key }, "rollover failed; will try again on the next change"))
      .finally(() => {
        this.maintaining = null;
        if (this.maintainAgain) {
          this.maintainAgain = false;
          this.scheduleMaintenance();
        }
      });
  }

  /** Run the writer's upkeep now: rollover (and carrying), then health compaction when due. */
  async maintain(): Promise<void> {
    const fence = this.o.lease.current();
    if (!fence || this.stopped) return;
    await rollOverIfDue(
      {
        ...this.o.rollover,
        api: this.o.api,
        store: this.o.store,
        repo: this.o.repo,
        issue: this.o.issue,
        logger: this.o.logger,
        selfLogin: this.o.selfLogin,
        ...(this.o.policy.signingKey !== undefined ? { signingKey: this.o.policy.signingKey } : {}),
      },
      fence,
      this.projection.snapshot(),
    );
    if (this.lateCarryDue && this.meta.predecessor !== undefined) {
      this.lateCarryDue = false;
      const o = this.o;
      await carryLateSaves({
        api: o.api,
        store: o.store,
        repo: o.repo,
        issue: o.issue,
        policy: o.policy,
        selfLogin: o.selfLogin,
        logger: o.logger,
        entries: this.projection.snapshot().entries,
        ...(o.readWindowSize ? { readWindowSize: o.readWindowSize } : {}),
      }).catch((e: unknown) => {
        this.lateCarryDue = true;
        o.logger.warn({ err: e, issue: this.key }, "checking the closed predecessor for late saves failed; will try again");
      });
    }
    const { retentionMs, intervalMs } = this.o.compaction;
    if (retentionMs > 0 && Date.now() - this.lastCompactionAt >= intervalMs) await this.compact();
    await this.refreshMeta();
  }

  private lastCompactionAt = 0;
  /**
   * When this process last read the issue from Forgejo, or stored or folded a delivery or another replica's
   * events: the projection holds everything up to then (the freshness of /api/resume).
   */
  asOf: Date | null = null;
  /** Set on start and reconcile: the writer's next upkeep checks the closed predecessor for late saves. */
  private lateCarryDue = false;
  /** The store's rollover/compaction bookkeeping of this issue, as last read (the dashboard's retention line). */
  private meta: IssueMeta = {};
  /** The issue that continues this one, once rolled over (as last read from the store). */
  get successor(): number | undefined {
    return this.meta.successor;
  }

  /**
   * Replicas: a follower's upkeep does not run (maintain() is the writer's), so it learns of a rollover
   * from the shared store, where the leader recorded the link, and watches the successor too.
   */
  async followRollover(): Promise<void> {
    if (this.stopped) return;
    await this.refreshMeta();
    if (this.meta.successor !== undefined) await this.o.rollover.track(this.meta.successor);
  }

  private async refreshMeta(): Promise<void> {
    const meta = await this.o.store.issueMeta(this.storeKey);
    if (JSON.stringify(meta) !== JSON.stringify(this.meta)) {
      this.meta = meta;
      this.dashboard.markDirty();
    }
  }

  /**
   * Archive and delete this issue's superseded health signals older than the
   * retention (writer only). `dryRun` reports what would go and changes nothing.
   */
  async compact(opts: { dryRun?: boolean } = {}): Promise<CompactionResult | null> {
    const fence = this.o.lease.current();
    if (!fence) return null;
    this.lastCompactionAt = Date.now();
    // Page by page into a bounded projection: never every stored body at once.
    const selector = supersededHealthSelector(this.o.policy, this.now().getTime(), this.o.compaction.retentionMs);
    for (let afterId = 0; ; ) {
      const page = await this.o.store.comments(this.storeKey, { afterId, limit: STORE_PAGE });
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
    await this.o.store.checkFence(fence);
    const result = await compactHealth({
      api: this.o.api,
      repo: this.o.repo,
      issue: this.o.issue,
      selected,
      dryRun: Boolean(opts.dryRun),
      now: this.now,
      ...(this.o.policy.signingKey !== undefined ? { signingKey: this.o.policy.signingKey } : {}),
    });
    if (!result.dryRun) {
      const prev = (await this.o.store.issueMeta(this.storeKey)).compaction;
      await this.o.store.updateIssueMeta(fence, this.storeKey, {
        compaction: {
          deleted: (prev?.deleted ?? 0) + result.deleted,
          archived: (prev?.archived ?? 0) + result.selected,
          ...(result.archive ? { archiveUrl: result.archive.url } : prev?.archiveUrl ? { archiveUrl: prev.archiveUrl } : {}),
          lastRunAt: this.now().toISOString(),
        },
      });
      this.o.logger.info({ issue: this.key, deleted: result.deleted, archive: result.archive?.name }, "compacted superseded health signals");
      await this.refreshMeta();
    }
    return result;
  }

  /** Resolves when scheduled upkeep (rollover, carrying) is done. */
  async maintained(): Promise<void> {
    while (this.maintaining) await this.maintaining;
  }

  /** Write the entries that changed since the last write (derived entries are cached objects: identity tells). */
  private persistEntries(): void {
    if (this.persisting) {
      this.persistAgain = true;
      return;
    }
    this.persisting = new Promise<void>((r) => setImmediate(r))
      .then(async () => {
        const current = new Map<string, AgentEntry>();
        const changed: AgentEntry[] = [];
        const snap = this.projection.snapshot();
        // Once per process, not on every re-derivation: the same anomaly is listed after each change.
        this.anomalyLog.note(this.o.logger, this.key, snap.anomalies);
        for (const e of snap.entries) {
          const k = entryKey(e.agent, e.session);
          current.set(k, e);
          if (this.persisted.get(k) !== e) changed.push(e);
        }
        const removed = [...this.persisted.entries()].filter(([k]) => !current.has(k)).map(([, e]) => ({ agent: e.agent, session: e.session }));
        if (changed.length || removed.length) await this.o.store.putEntries(this.storeKey, changed, removed);
        this.persisted = current;
        if (Date.now() - this.sealedWrittenAt >= SEALED_STATE_EVERY_MS) await this.storeSealedState();
      })
      .catch((e: unknown) => this.o.logger.warn({ err: e, issue: this.key }, "storing entries failed; will retry on the next change"))
      .finally(() => {
        this.persisting = null;
        if (this.persistAgain) {
          this.persistAgain = false;
          this.persistEntries();
        }
      });
  }

  /** Refresh this issue's gauges (called by the /metrics handler). */
  updateGauges(): void {
    const snap = this.projection.snapshot();
    this.o.metrics.comments.set({ issue: this.key }, snap.comments);
    this.o.metrics.anomalies.set({ issue: this.key }, snap.anomalies.length);
  }
}
