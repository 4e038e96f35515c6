import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { systemClock } from "../clock.ts";
import type { HostIssue, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { findOpenHead } from "../chain/open-head.ts";
import { formatCheckpoint, formatHealth, parseComment, pythonUtcIsoformat, signCheckpoint, PROTOCOL_VERSION } from "../protocol/index.ts";
import type { Checkpoint, JsonObject, PhaseMap } from "../protocol/index.ts";
import { createProjection, decideResume } from "../projection/index.ts";
import type { Directive, LegacyWriters, NamedPhaseMap, Projection, ProjectionSnapshot, ResumeDecision, LatestCheckpoint, LivenessOptions, TrustPolicy } from "../projection/index.ts";
import { CheckpointTooLargeError } from "../errors.ts";
import { DEFAULT_MAX_CHECKPOINT_BYTES, DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "./defaults.ts";
import { locateIssue } from "./locate-issue.ts";
import { postExactlyOnce } from "./post-exactly-once.ts";
import { toCommentRecord } from "./to-comment-record.ts";
import { coldResume, coldResumeFromHint } from "./cold-resume.ts";
import type { ResumeIndexRef } from "../dashboard/index.ts";
import type { ColdResumeAnswer } from "./cold-resume.ts";
import { readAllComments } from "./read-all-comments.ts";

export interface SessionStoreOptions {
  api: IssueHost;
  repo: RepoRef;
  title?: string;
  label?: string;
  /** Known issue number: skips the lookup, so a save is exactly one request. */
  issue?: number;
  /** Logins believed besides the token's own user (CHECKPOST_TRUSTED_AUTHORS). */
  trustedAuthors?: string[];
  /** The token's own login, if known (saves a GET /user on reads). */
  selfLogin?: string;
  /**
   * `selfLogin` was remembered (the CLI's login cache), not read from Forgejo
   * now: a resume that had to read every comment checks it with GET /user, and
   * a save's response corrects it, so a renamed user is noticed.
   */
  selfLoginRemembered?: boolean;
  /**
   * Where each issue's resume index comment is, remembered between processes (the CLI's
   * `index-refs.json`): a cold resume of an issue it knows skips the read of the issue (its body is
   * most of a cold resume's bytes) and takes at most 2 requests (docs/benchmarks.md). Only a hint:
   * what it names is checked as the body's pointer is, and a stale one costs the usual read.
   */
  indexRefs?: { get(issue: number): ResumeIndexRef | undefined; set(issue: number, ref: ResumeIndexRef): void };
  /** Told the token's login whenever Forgejo states it (GET /user, a save's response): the CLI remembers it. */
  onSelfLogin?: (login: string) => void;
  /** CHECKPOST_SIGNING_KEY: sign what we write, believe only what verifies. */
  signingKey?: string;
  /** CHECKPOST_LEGACY_WRITERS: a legacy (1.0) writer's checkpoint below a raised fence is a zombie (`fence`, default) or believed (`accept`). */
  legacyWriters?: LegacyWriters;
  maxCheckpointBytes?: number;
  /** Issues with more comments are read in windows of updated time (see readAllComments). Default 2,000. */
  readWindowSize?: number;
  logger?: Pick<Logger, "warn" | "debug" | "info">;
  /** Stale/silent thresholds of `resume`'s liveness (CHECKPOST_STALE_AFTER_MS, CHECKPOST_MIN_STALE_MS), as the bot's. */
  liveness?: Partial<LivenessOptions>;
  now?: () => Date;
  newId?: () => string;
}

export interface SaveInput {
  agent: string;
  session: string;
  phase: string;
  data: JsonObject;
  /** Override the handle's own Seq/Epoch memory (the CLI's --seq/--epoch). */
  seq?: number;
  epoch?: number;
}

export interface SavedCheckpoint {
  comment_id: number;
  issue: number;
  html_url: string;
  checkpoint: Checkpoint;
  /** With `checkDirective`: what a person asked of this agent+session (null: nothing). */
  directive?: Directive | null;
  /**
   * With `checkDirective`: true when this save's epoch is below the fence, so readers treat it as a
   * zombie (stop: another worker took over); null when it cannot be told without reading a large issue
   * whole (no usable resume index): run `resume` to find out.
   */
  fenced?: boolean | null;
  /** With `checkDirective`, when the bot's verified index answered: the agent+sessions it lists (the CLI's "new agent" line). */
  indexed?: { agent: string; session: string; commentId: number }[];
}

/**
 * A save with `checkDirective` on an issue without a usable resume index reads every comment when the
 * issue has at most this many (an issue opened a moment ago, before the bot's first index); above, the
 * answer is `fenced: null` (unknown) rather than a read of the whole issue beside every save.
 */
export const SAVE_FULL_READ_MAX_COMMENTS = 200;

/** A checkpoint as `latest`/`history` return it. */
export type StoredCheckpoint = LatestCheckpoint & { agent: string; session: string };

const isNamedMap = (m: Readonly<PhaseMap> | NamedPhaseMap): m is NamedPhaseMap => typeof m.name === "string" && typeof m.map === "object" && m.map !== null;

const key = (agent: string, session: string) => `${agent}\u0000${session}`;

/** A fresh unique checkpoint id: "cp-" + 24 hex digits (96 random bits). */
export function newCheckpointId(): string {
  return `cp-${randomBytes(12).toString("hex")}`;
}

/**
 * The library API: locate (or create) the session issue, save checkpoints and
 * health signals, and reconstruct resume points. A handle remembers the issue
 * number and, per agent+session, the last Seq and Epoch it saw or wrote, so a
 * save never reads back.
 */
export class SessionStore {
  readonly repo: RepoRef;
  private issue: number | undefined;
  private self: string | undefined;
  private selfRemembered: boolean;
  private readonly writers = new Map<string, { seq: number; epoch: number }>();
  private readonly o: Required<Pick<SessionStoreOptions, "title" | "label" | "maxCheckpointBytes" | "now" | "newId">> & SessionStoreOptions;

  constructor(options: SessionStoreOptions) {
    this.repo = options.repo;
    this.issue = options.issue;
    this.self = options.selfLogin;
    this.selfRemembered = options.selfLogin !== undefined && options.selfLoginRemembered === true;
    this.o = {
      title: DEFAULT_SESSION_TITLE,
      label: DEFAULT_SESSION_LABEL,
      maxCheckpointBytes: DEFAULT_MAX_CHECKPOINT_BYTES,
      now: systemClock,
      newId: newCheckpointId,
      ...options,
    };
    this.headCheckedAt = this.o.now().getTime();
  }

  get api(): IssueHost {
    return this.o.api;
  }

  /** The session issue's number, located once per handle (or created when `create`). */
  async issueNumber(opts: { create?: boolean } = {}): Promise<number> {
    if (this.issue !== undefined) return this.issue;
    const found = await locateIssue(this.o.api, this.repo, {
      title: this.o.title,
      label: this.o.label,
      create: opts.create ?? false,
      warn: (msg, extra) => this.o.logger?.warn(extra, msg),
    });
    this.issue = found.number;
    return found.number;
  }

  /**
   * Post a checkpoint exactly once. Costs one request when the issue number is
   * known. With `checkDirective`, the issue is read beside the POST (same
   * latency) and a directive its resume index names is verified and returned.
   */
  async save(input: SaveInput, opts: { checkDirective?: boolean } = {}): Promise<SavedCheckpoint> {
    const k = key(input.agent, input.session);
    const mem = this.writers.get(k);
    const seq = input.seq ?? (mem ? mem.seq + 1 : undefined);
    const epoch = input.epoch ?? mem?.epoch;
    const cp: Checkpoint = {
      version: PROTOCOL_VERSION,
      agent: input.agent,
      session: input.session,
      phase: input.phase,
      timestamp: pythonUtcIsoformat(this.o.now()),
      data: input.data,
      id: this.o.newId(),
      ...(seq !== undefined ? { seq } : {}),
      ...(epoch !== undefined ? { epoch } : {}),
    };
    if (this.o.signingKey) cp.signature = signCheckpoint(cp, this.o.signingKey);
    const body = formatCheckpoint({ ...cp, data: input.data, timestamp: cp.timestamp as string });
    this.checkSize(body, input.data);
    const issue = await this.issueNumber();
    // Beside the POST (same latency): is the issue still the open head of the chain? With checkDirective,
    // the same read answers the directive by the same decision `resume` makes (the index plus the tail).
    const headRead = opts.checkDirective || this.headCheckDue() ? this.o.api.readIssue(this.repo, issue) : null;
    headRead?.catch(() => {}); // awaited below; never an unhandled rejection while the POST runs
    const marker = `\nId: ${cp.id}\n`;
    let comment = await postExactlyOnce(this.o.api, this.repo, issue, body, marker);
    let landed = issue;
    let head: HostIssue | null = null;
    if (headRead) {
      head = await headRead;
      if (head.state !== "open") {
        // The issue rolled over: this save reached a closed issue. Post it on the open head too (same Id,
        // so the bot's carry of the first copy is skipped: the head already holds something newer).
        head = (await this.followChain(head)).head;
        comment = await postExactlyOnce(this.o.api, this.repo, head.number, body, marker);
        landed = head.number;
      }
      this.headCheckedAt = this.o.now().getTime();
    }
    // The response names the token's user: a free check of a remembered login.
    this.learnSelf(comment.author);
    this.selfRemembered = false;
    if (seq !== undefined || epoch !== undefined) this.writers.set(k, { seq: seq ?? 0, epoch: epoch ?? 0 });
    const saved: SavedCheckpoint = { comment_id: comment.id, issue: landed, html_url: comment.htmlUrl, checkpoint: cp };
    if (opts.checkDirective && head) {
      const read = (fullRead: boolean) =>
        coldResume({ api: this.o.api, repo: this.repo, issue: landed, issueMeta: head as HostIssue, policy: this.policy(), agent: input.agent, session: input.session, map: {}, fullRead });
      let r = await read(false);
      // No resume index to answer from (an issue opened a moment ago, or no bot): a small issue is read
      // whole, or a zombie's save would answer `fenced: false` (issue 28.5). A large one says it cannot tell.
      if (r.via === "none") {
        if ((head.commentCount ?? Number.POSITIVE_INFINITY) > SAVE_FULL_READ_MAX_COMMENTS) {
          saved.directive = null;
          saved.fenced = null;
          return saved;
        }
        r = await read(true);
      }
      saved.directive = r.directive;
      saved.fenced = (epoch ?? 0) < Math.max(r.maxEpoch, r.directive?.epoch ?? 0);
      if (r.indexed) saved.indexed = r.indexed;
    }
    return saved;
  }

  /**
   * A plain library save checks, beside its POST, that the issue is still the open head once this long
   * after the handle was made or last checked (CLI saves, with checkDirective, always do): a save stays one
   * request, and a long-lived handle notices a rollover within a minute. A save that reached a closed
   * issue meanwhile is carried into the head by the bot (docs/chain.md).
   */
  static readonly HEAD_RECHECK_MS = 60_000;
  private headCheckedAt: number;
  private headCheckDue(): boolean {
    return this.o.now().getTime() - this.headCheckedAt >= SessionStore.HEAD_RECHECK_MS;
  }

  /**
   * The open head of the session chain from an issue read just now (docs/chain.md): a closed issue is
   * never read or written as the session, its successor is followed. Remembers the head's number.
   */
  private async followChain(issue: HostIssue): Promise<{ head: HostIssue; passed: number[] }> {
    this.headCheckedAt = this.o.now().getTime();
    if (issue.state === "open") return { head: issue, passed: [] };
    const policy = await this.policy();
    const r = await findOpenHead(this.o.api, this.repo, issue, policy.trustedAuthors, { listAll: (n) => this.readAll(n) });
    this.o.logger?.info({ from: issue.number, head: r.head.number, passed: r.passed }, "the session issue rolled over: following the chain to its open head");
    this.issue = r.head.number;
    return r;
  }

  /** Read the session issue and follow the chain to its open head. */
  async head(): Promise<HostIssue> {
    const issue = await this.issueNumber();
    return (await this.followChain(await this.o.api.readIssue(this.repo, issue))).head;
  }

  /** Post a `[HEALTH]` signal (retried; a duplicate health signal is harmless). */
  async health(input: { agent: string; session: string; metrics: JsonObject; status?: string; nextCheck?: string }) {
    const body = formatHealth({ ...input, timestamp: pythonUtcIsoformat(this.o.now()) });
    // The same cap as checkpoints: readers reject larger comments, so posting one only loses it.
    this.checkSize(body, input.metrics, "health signal");
    const issue = await this.issueNumber();
    const comment = await this.o.api.postRecord(this.repo, issue, body);
    return { comment_id: comment.id, issue, html_url: comment.htmlUrl };
  }

  /** Read every comment and fold it (the full, always-correct path). */
  async project(): Promise<Projection> {
    const head = await this.head();
    const [comments, policy] = await Promise.all([this.readAll(head.number, head), this.policy()]);
    const p = createProjection(policy);
    p.replaceAll(comments.map(toCommentRecord));
    return p;
  }

  async snapshot(): Promise<ProjectionSnapshot> {
    return (await this.project()).snapshot();
  }

  /** The newest trusted checkpoint of an agent (of one session, or of any). */
  async latest(agent: string, session?: string): Promise<StoredCheckpoint | null> {
    const entries = (await this.snapshot()).entries.filter((e) => e.agent === agent && (session === undefined || e.session === session) && e.latest);
    const best = entries.sort((a, b) => (b.latest?.commentId ?? 0) - (a.latest?.commentId ?? 0))[0];
    return best?.latest ? { ...best.latest, agent: best.agent, session: best.session } : null;
  }

  /**
   * Where a restarted worker continues. Uses the dashboard's resume index when
   * the bot keeps one (a few small requests), verifying what it points to, and
   * falls back to reading every comment. Remembers Seq and takes over with the
   * next Epoch, so this handle's later saves fence off any zombie. With
   * `takeOver`, the fence is written at once (one extra request).
   */
  async resume(
    agent: string,
    session: string,
    map: Readonly<PhaseMap> | NamedPhaseMap | null,
    opts: { takeOver?: boolean } = {},
  ): Promise<ResumeDecision & { via: ColdResumeAnswer["via"]; takeover_comment_id?: number }> {
    // null: no map, the agent resumes at its own phase (`mapped: false`), as every reader answers.
    const named: NamedPhaseMap | null = map === null ? null : isNamedMap(map) ? map : { name: "custom", map };
    const first = await this.issueNumber();
    // The policy may need GET /user: let it run beside the issue read instead of before it.
    const policy = this.policy();
    policy.catch(() => {}); // awaited inside coldResume; never an unhandled rejection meanwhile
    const hint = this.o.indexRefs?.get(first);
    const hinted = hint ? await coldResumeFromHint({ api: this.o.api, repo: this.repo, issue: first, policy, agent, session, map: named?.map ?? {}, indexHint: hint }) : null;
    const answer = hinted ?? (await this.resumeCold(first, policy, agent, session, named));
    if (answer.indexRef) this.rememberIndexRef(this.issue ?? first, answer.indexRef);
    // The one resume decision (src/projection/resume-decision.ts), liveness included: the index path
    // joins the index's signals to the tail's (cold-resume.ts), so it equals a full read's.
    const decision = decideResume(agent, answer.entry, { map: named, now: this.o.now(), ...(this.o.liveness ? { liveness: this.o.liveness } : {}) });
    // Take over: every resume fences off earlier writers of this agent+session.
    const { epoch } = decision;
    const seq = answer.checkpoint?.seq ?? 0;
    // takeOver: write the fence now (the same phase and state under the new epoch), so a zombie's
    // checkpoint is fenced off even if this worker dies before its first own save. One above the plain
    // resume's epoch (issue 28.5): a resume that writes nothing hands out the highest written epoch + 1,
    // so every epoch ever handed out is at most that, and the take-over's is above all of them.
    if (opts.takeOver && answer.checkpoint) {
      let held = epoch + 1;
      let saved = await this.save({ agent, session, phase: answer.phase, data: answer.state as JsonObject, seq: seq + 1, epoch: held });
      // Two take-overs that read the same fence wrote the same epoch: the later comment goes one above (at most twice more).
      for (let round = 0; round < 2 && (await this.tiedTakeOver(saved, held)); round++) {
        held++;
        saved = await this.save({ agent, session, phase: answer.phase, data: answer.state as JsonObject, seq: seq + 1, epoch: held });
      }
      return { ...decision, epoch: held, via: answer.via, next_seq: seq + 2, takeover_comment_id: saved.comment_id };
    }
    // A take-over with nothing to write (no checkpoint yet) still hands out one above what a plain resume holds.
    const held = opts.takeOver ? epoch + 1 : epoch;
    this.writers.set(key(agent, session), { seq, epoch: held });
    return { ...decision, epoch: held, via: answer.via };
  }

  /**
   * Whether another writer's checkpoint of the same agent+session holds `epoch` (or more) with a lower
   * comment id than the take-over `saved`: it took over from the same fence a moment before. One read
   * of the comments since a minute before the save (the other took over after this one's resume read).
   */
  private async tiedTakeOver(saved: SavedCheckpoint, epoch: number): Promise<boolean> {
    const policy = await this.policy();
    const trusted = new Set([...policy.trustedAuthors].map((a) => a.toLowerCase()));
    const since = Date.parse(saved.checkpoint.timestamp ?? "") - 60_000;
    const recent = await this.o.api.listCommentsSince(this.repo, saved.issue, Number.isNaN(since) ? {} : { sinceMs: since });
    return recent.some((c) => {
      if (c.id >= saved.comment_id || !trusted.has(c.author.toLowerCase())) return false;
      const p = parseComment(c.body);
      return (
        p.kind === "checkpoint" &&
        p.checkpoint.agent === saved.checkpoint.agent &&
        p.checkpoint.session === saved.checkpoint.session &&
        (p.checkpoint.epoch ?? 0) >= epoch &&
        p.checkpoint.id !== saved.checkpoint.id
      );
    });
  }

  private rememberIndexRef(issue: number, ref: ResumeIndexRef): void {
    try {
      this.o.indexRefs?.set(issue, ref);
    } catch (e) {
      this.o.logger?.debug({ err: e }, "could not remember the resume index comment; the next resume reads the issue");
    }
  }

  /** The cold path: read the issue (following the chain to its open head), then the index and tail, or every comment. */
  private async resumeCold(first: number, policy: Promise<TrustPolicy>, agent: string, session: string, named: NamedPhaseMap | null): Promise<ColdResumeAnswer> {
    // The open head of the chain: one read when the remembered issue is still open (coldResume reuses it).
    const { head } = await this.followChain(await this.o.api.readIssue(this.repo, first));
    const issue = head.number;
    let meta: HostIssue | undefined = head;
    const read = (p: ReturnType<SessionStore["policy"]>) => {
      const issueMeta = meta;
      meta = undefined; // a second read (the login changed) reads the issue again
      return coldResume({
        api: this.o.api,
        repo: this.repo,
        issue,
        policy: p,
        agent,
        session,
        map: named?.map ?? {},
        ...(issueMeta ? { issueMeta } : {}),
        ...(this.o.readWindowSize ? { readWindowSize: this.o.readWindowSize } : {}),
      });
    };
    let answer = await read(policy);
    // A remembered login that is wrong (the user was renamed) makes our own checkpoints untrusted, which
    // sends the index path to a full read: only then is it worth a GET /user (beside a full read it is nothing).
    if (answer.via === "full" && this.selfRemembered) {
      const before = this.self;
      this.selfRemembered = false;
      this.learnSelf((await this.o.api.currentUser()).login);
      if (this.self !== before) answer = await read(this.policy());
    }
    return answer;
  }

  private readAll(issue: number, issueMeta?: HostIssue) {
    return readAllComments(this.o.api, this.repo, issue, { ...(this.o.readWindowSize ? { windowSize: this.o.readWindowSize } : {}), ...(issueMeta ? { issueMeta } : {}) });
  }

  private learnSelf(login: string): void {
    if (login === this.self) return;
    this.self = login;
    this.o.onSelfLogin?.(login);
  }

  /** Who is believed: the token's user and CHECKPOST_TRUSTED_AUTHORS, plus the signing key. */
  async policy(): Promise<TrustPolicy> {
    let self = this.self;
    if (self === undefined) {
      self = (await this.o.api.currentUser()).login;
      this.learnSelf(self);
      this.selfRemembered = false;
    }
    const trusted = new Set([self, ...(this.o.trustedAuthors ?? [])].map((s) => s.toLowerCase()));
    return { trustedAuthors: trusted, ...(this.o.signingKey ? { signingKey: this.o.signingKey } : {}), ...(this.o.legacyWriters ? { legacyWriters: this.o.legacyWriters } : {}) };
  }

  private checkSize(body: string, data: JsonObject, kind: "checkpoint" | "health signal" = "checkpoint"): void {
    const bytes = Buffer.byteLength(body, "utf8");
    if (bytes <= this.o.maxCheckpointBytes) return;
    const largest = Object.entries(data)
      .map(([k, v]) => [k, JSON.stringify(v)?.length ?? 0] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k]) => k);
    throw new CheckpointTooLargeError(bytes, this.o.maxCheckpointBytes, largest, kind);
  }
}
