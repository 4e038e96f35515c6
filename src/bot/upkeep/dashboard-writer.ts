import type { Logger } from "pino";
import { type MsClock, systemMs } from "../../clock.ts";
import type { IssueHost, RepoRef } from "../../ports/issue-host.ts";
import { RESUME_INDEX_OPEN, bodyStampMatches, dashboardChanged, extractResumeIndexRef, findDashboardSections, resumeIndexCommentContent, spliceDashboard, stampBody } from "../../dashboard/index.ts";
import type { ResumeIndexRef } from "../../dashboard/index.ts";
import { HostError } from "../../errors.ts";
import { commentOnIssue } from "../../session-client/comment-on-issue.ts";
import type { BotMetrics } from "../bot-metrics.ts";

export interface DashboardWriterOptions {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  /** The section to write, rendered at write time; with `ref`, it points at the index comment instead of holding the index (null: neither). */
  render: (ref?: ResumeIndexRef | null) => string;
  /**
   * The resume index as it would be written now (see renderResumeIndex). Over `inlineMaxBytes`
   * (default RESUME_INDEX_INLINE_MAX_BYTES), or when the section holding it would be over
   * DASHBOARD_SECTION_MAX_BYTES, it is kept in a comment of the issue, which the bot
   * creates once and edits, and the body holds only a pointer to it (docs/dashboard.md).
   */
  resumeIndex?: {
    render: () => { text: string; since: string | null; content: string };
    selfLogin: string;
    inlineMaxBytes?: number;
  };
  /** At most one write per window (ms). */
  minIntervalMs: number;
  /** After a person's edit, timed writes wait this long (ms); flush() does not. Default DEFAULT_DASHBOARD_HOLD_MS. */
  holdMs?: number;
  /**
   * Called when the body read before a write is not what this process last
   * wrote (nor a person's edit a webhook told of): someone edited it since.
   * The tracker treats it as a person's edit (ticks, hold) before the write.
   */
  onForeignEdit?: (body: string, poster: string, updatedAt: string) => Promise<void>;
  /** After each write, with the body written. */
  onWritten?: (body: string) => void;
  logger: Pick<Logger, "info" | "warn" | "debug" | "error">;
  metrics?: BotMetrics;
  /** Checked right before each write: false (not the issue's writer) skips it quietly. */
  mayWrite?: () => Promise<boolean>;
  /**
   * Replicas on a shared store: runs the Forgejo write itself, begun only
   * while this process's fencing token is the lease's current one (and
   * logged with it), else rejects and nothing is written.
   */
  fencedWrite?: <T>(kind: string, write: () => Promise<T>) => Promise<T>;
  /** The clock for the write window and the hold (default: the system's). */
  now?: MsClock;
}

/**
 * Largest resume index kept inline in the body: none by default, every index goes to the index
 * comment. Every issue_comment delivery carries the whole body, and the index grows with the agents
 * (1.5 MB at 10,000); and a reader that remembers the index comment's id skips the read of the body
 * altogether (most of a cold resume's bytes; docs/benchmarks.md). Readers still take an inline index.
 */
export const RESUME_INDEX_INLINE_MAX_BYTES = 0;

/**
 * Largest dashboard section written with its index inline (issue 22's body target at the bench's 20
 * agents): a section that would be larger keeps the index in the index comment instead. The index's
 * liveness fields (last signal, the gaps) made 20 agents' inline index ~7 KiB, over the target.
 */
export const DASHBOARD_SECTION_MAX_BYTES = 32 * 1024;

/** The visible head of the index comment. */
export const RESUME_INDEX_COMMENT_HEAD =
  "_checkpost resume index: where each agent session's resume point is, for readers without the bot. The bot keeps this comment up to date; editing it only makes readers read every comment._";

/**
 * Forgejo refuses a web edit (a checkbox tick) made on a page loaded before the
 * body's last change: the form carries `content_version` (routers/web/repo/issue.go:2344,
 * models/issues/issue_update.go:283-289). So after a person's edit the bot
 * holds its timed dashboard writes this long: their next ticks on the same page
 * still match. Agents' saves meanwhile are shown when the hold ends (docs/dashboard.md).
 */
export const DEFAULT_DASHBOARD_HOLD_MS = 60_000;

/** The issue body without our section: the part that belongs to people. */
function outside(body: string): string {
  let out = "";
  let at = 0;
  for (const s of findDashboardSections(body)) {
    out += body.slice(at, s.start);
    at = s.end;
  }
  return out + body.slice(at);
}

/**
 * Keeps the dashboard section of the session issue's body current. Writes are
 * coalesced (one per window, none when nothing changed), and every write
 * re-reads the body right before patching so a person's text outside the
 * markers is kept. Forgejo has no conditional PATCH, so a person's edit can
 * still land between our read and our write; when a webhook tells us of such
 * an edit and our write clobbered it, the next write restores their text.
 */
export class DashboardWriter {
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastWriteAt = 0;
  private lastWritten: string | null = null;
  /** A person's body seen in an `issues.edited` webhook after our last write. */
  private humanBody: string | null = null;
  private stopped = false;
  /** The index comment as last written: its id, what it held (bar the watermark) and the pointer to it. */
  private indexComment: { id: number; content: string; ref: ResumeIndexRef } | null = null;
  /** Timed writes wait until then (a person's edit; see DEFAULT_DASHBOARD_HOLD_MS). */
  private heldUntil = 0;
  /** flush() writes through a hold. */
  private forced = false;
  /** markDirty() calls so far, and the count the index comment was last brought up to date with during a hold. */
  private dirtyCount = 0;
  private indexCount = -1;
  /** What the resume index in the body said (bar the watermark) when this process last wrote it. */
  private bodyIndexContent: string | null = null;
  writes = 0;

  /** The body this process is writing now (its request may be in flight), else null. */
  private writing: string | null = null;

  /**
   * Whether `body` is what this process wrote last or is writing now, or what another replica of
   * the bot wrote (its stamp matches, see stampBody): not a person's edit, so no hold.
   */
  isOwnBody(body: string): boolean {
    return body === this.writing || (body === this.lastWritten && this.writing === null && this.humanBody === null) || (body !== this.lastWritten && bodyStampMatches(body));
  }

  /** Whether timed writes are held now (a person edited recently). */
  held(): boolean {
    return this.now() < this.heldUntil;
  }

  private readonly now: MsClock;

  constructor(private readonly o: DashboardWriterOptions) {
    this.now = o.now ?? systemMs;
  }

  /** Something changed: write within the window. */
  markDirty(): void {
    this.dirty = true;
    this.dirtyCount++;
    // Held: the pending timer waits for the hold's end; the index comment must not (writeIndexThroughHold).
    if (this.held() && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.schedule();
  }

  /** An `issues.edited` webhook from someone else than the bot. */
  noteHumanEdit(body: string): void {
    if (body === this.lastWritten) return;
    this.humanBody = body;
    this.heldUntil = this.now() + (this.o.holdMs ?? DEFAULT_DASHBOARD_HOLD_MS);
    if (this.timer) clearTimeout(this.timer); // re-timed past the hold
    this.timer = null;
    this.markDirty();
  }

  /** Write now if anything is pending; resolves when the body is current. */
  async flush(): Promise<void> {
    // A run that ends while we wait re-times itself when a change came during it: that timer is
    // ours to take too, or it fires after the flush and reads the body for nothing (bot.test.ts on CI).
    do {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      if (this.running) await this.running;
    } while (this.running || this.timer);
    if (this.dirty) {
      this.forced = true;
      try {
        await this.run();
      } finally {
        this.forced = false;
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped) return;
    // During a hold the body waits, but the index comment is kept current within the window (writeIndexThroughHold).
    const holdWait = this.held() && this.indexCount === this.dirtyCount ? this.heldUntil - this.now() : 0;
    const wait = Math.max(0, this.lastWriteAt + this.o.minIntervalMs - this.now(), holdWait);
    this.timer = setTimeout(() => {
      this.timer = null;
      // A flush may have written everything since: reading the body again would be for nothing.
      if (this.dirty && !this.running) void this.run();
    }, wait);
    this.timer.unref?.();
  }

  private run(): Promise<void> {
    this.running = this.write()
      .catch((e: unknown) => {
        this.dirty = true; // keep it pending; the next window retries
        this.o.metrics?.dashboardWrites.inc({ result: "failed" });
        this.o.logger.warn({ err: e, issue: this.o.issue }, "dashboard write failed; will retry");
      })
      .finally(() => {
        this.running = null;
        this.lastWriteAt = this.now();
        if (this.dirty) this.schedule();
      });
    return this.running;
  }

  private async write(): Promise<void> {
    this.dirty = false;
    if (this.o.mayWrite && !(await this.o.mayWrite())) {
      this.o.metrics?.dashboardWrites.inc({ result: "not_writer" });
      return;
    }
    const read = await this.o.api.readIssueBody(this.o.repo, this.o.issue);
    let base = read.body;
    if (this.o.onForeignEdit && this.lastWritten !== null && base !== this.lastWritten && base !== this.humanBody) await this.o.onForeignEdit(base, read.author, read.updatedAt);
    if (!this.forced && this.held()) {
      this.dirty = true; // the body is written when the hold ends
      const asked = this.dirtyCount;
      await this.writeIndexThroughHold(base);
      this.indexCount = asked;
      this.o.metrics?.dashboardWrites.inc({ result: "held" });
      return;
    }
    const ix = this.o.resumeIndex?.render();
    let ref: ResumeIndexRef | null | undefined;
    // Inline only while the index is small and the section holding it stays under the body target.
    const inline = ix && Buffer.byteLength(ix.text) <= (this.o.resumeIndex?.inlineMaxBytes ?? RESUME_INDEX_INLINE_MAX_BYTES) ? this.o.render() : null;
    if (ix && (inline === null || Buffer.byteLength(inline) > DASHBOARD_SECTION_MAX_BYTES)) {
      // No watermark time (a projection restored from the store, before it read a comment): readers could not use a new index; keep the pointer as it is.
      ref = ix.since !== null ? await this.writeIndexComment({ ...ix, since: ix.since }, base) : (this.indexComment?.ref ?? extractResumeIndexRef(base));
    }
    const section = ref === undefined && inline !== null ? inline : this.o.render(ref);
    let repaired = false;
    const human = this.humanBody;
    // The body is still exactly what we wrote, yet a person's edit arrived since: our write overwrote it.
    if (human !== null && this.lastWritten !== null && base === this.lastWritten && outside(human) !== outside(base)) {
      base = human;
      repaired = true;
    }
    this.humanBody = null;
    const next = stampBody(spliceDashboard(base, section));
    if (!repaired && !dashboardChanged(base, next)) {
      this.o.metrics?.dashboardWrites.inc({ result: "unchanged" });
      return;
    }
    // Again right before the write: the lease may have moved during the read.
    if (this.o.mayWrite && !(await this.o.mayWrite())) {
      this.o.metrics?.dashboardWrites.inc({ result: "not_writer" });
      return;
    }
    const edit = () => this.o.api.writeIssueBody(this.o.repo, this.o.issue, next); // not compare-and-set: the next write() re-reads
    this.writing = next;
    try {
      await (this.o.fencedWrite ? this.o.fencedWrite("dashboard", edit) : edit());
    } finally {
      this.writing = null;
    }
    this.lastWritten = next;
    this.bodyIndexContent = ix?.content ?? null;
    this.o.onWritten?.(next);
    this.writes++;
    this.o.metrics?.dashboardWrites.inc({ result: repaired ? "repaired" : "written" });
    this.o.logger.debug({ issue: this.o.issue, repaired }, "dashboard written");
  }

  /**
   * A hold keeps the body as the person's page has it (DEFAULT_DASHBOARD_HOLD_MS), but the resume
   * index must not wait a minute: it goes to the index comment (a comment edit leaves the body's
   * content_version alone). When the body points to that comment (a large index) readers follow the
   * pointer as always; when the body holds a small index inline, the comment is posted (or edited)
   * after that index's watermark, so it is in the tail a cold reader lists anyway, and readers that
   * read the index alone take the newer of the two (docs/dashboard.md). Nothing is written while the
   * index says what the body's index says.
   */
  private async writeIndexThroughHold(body: string): Promise<void> {
    const ix = this.o.resumeIndex?.render();
    if (!ix || ix.since === null) return;
    if (extractResumeIndexRef(body) === null && ix.content === this.bodyIndexContent) return;
    await this.writeIndexComment({ ...ix, since: ix.since }, body);
  }

  /**
   * Write the index to its comment (created on first use) and return the pointer to it. An index
   * that differs from the last one written only in its watermark is not written again: the pointer's
   * older `since` only makes readers list a longer tail, and the bot's own edit (which moves the
   * watermark) then causes no further write.
   */
  private async writeIndexComment(ix: { text: string; since: string; content: string }, body: string): Promise<ResumeIndexRef> {
    const o = this.o;
    const self = (o.resumeIndex?.selfLogin ?? "").toLowerCase();
    let id = this.indexComment?.id ?? null;
    if (id === null) {
      // After a restart: the comment the body points to, if it is ours and an index (never edit a person's comment).
      const pointer = extractResumeIndexRef(body);
      if (pointer !== null) {
        try {
          const c = await o.api.readRecord(o.repo, pointer.comment);
          if (c.author.toLowerCase() === self && commentOnIssue(c, o.repo, o.issue) && c.body.includes(RESUME_INDEX_OPEN)) {
            id = c.id;
            // A restart with nothing new to say: no rewrite (up to 1.1 MB at 10,000 agents), and the pointer stays as it is.
            if (resumeIndexCommentContent(c.body) === ix.content) this.indexComment = { id, content: ix.content, ref: pointer };
          }
        } catch (e) {
          if (!(e instanceof HostError && e.reason === "not-found")) throw e;
        }
      }
    }
    if (id !== null && this.indexComment?.id === id && this.indexComment.content === ix.content) return this.indexComment.ref;
    const text = `${RESUME_INDEX_COMMENT_HEAD}\n\n${ix.text}`;
    const create = () => o.api.postRecord(o.repo, o.issue, text);
    const fenced = <T>(write: () => Promise<T>) => (o.fencedWrite ? o.fencedWrite("resume-index", write) : write());
    let written: { id: number };
    if (id === null) written = await fenced(create);
    else {
      const known = id;
      try {
        written = await fenced(() => o.api.editRecord(o.repo, known, text));
      } catch (e) {
        if (!(e instanceof HostError && e.reason === "not-found")) throw e;
        written = await fenced(create); // deleted by someone: a new one
      }
    }
    const ref = { comment: written.id, since: ix.since };
    this.indexComment = { id: written.id, content: ix.content, ref };
    return ref;
  }
}
