import * as z from "zod";
import type { AgentEntry, CommentEvent, RestoredComment } from "../projection/index.ts";
import type { ResumeIndex } from "../dashboard/index.ts";
import { ControlActionSchema } from "../protocol/index.ts";

/**
 * Which session issue a row belongs to: "owner/repo#n", lower-cased (Forgejo's
 * owner and repository names compare case-insensitively). See issueKey().
 */
export type IssueKey = string;

/**
 * One comment as the store keeps it: the newest version seen and enough to fold
 * it into a projection again after a restart, without asking Forgejo. Bodies
 * are kept only for protocol comments (`[CHECKPOINT]`/`[HEALTH]`): other
 * comments need only their id, time and digest (watermark, edit detection).
 */
export type StoredComment = RestoredComment;

/**
 * How far the incremental reads have come. Forgejo's `since` has whole-second
 * resolution and is inclusive, so the next read starts at `updatedAtSecond`
 * again; `idsInSecond` are the comment ids already seen with that second, so a
 * reader can tell the re-read boundary from news.
 */
export interface Watermark {
  /** Unix seconds of the newest `updated_at` stored. */
  updatedAtSecond: number;
  /** Ascending. */
  idsInSecond: number[];
}

/** Which stored comments `comments` returns (all when empty); the options combine. */
export interface CommentQuery {
  /** Only ids above this one. */
  afterId?: number;
  /** At most this many (the lowest ids). */
  limit?: number;
  /** Only these ids. */
  ids?: readonly number[];
  /** false: leave bodies out (null, `bodyOmitted: true` where one is stored): a restart reads them only for comments it parses. */
  bodies?: boolean;
}

/** What one `applyDelivery` did. */
export interface ApplyResult {
  /** The delivery id had been applied before: nothing was changed. */
  duplicate: boolean;
  /**
   * The events that changed the stored comments (a new comment, a newer
   * version, a first delete), in the order given: fold exactly these into an
   * in-memory projection. Re-sent and older versions are left out.
   */
  changed: CommentEvent[];
}

/**
 * A time-limited right to be the one writer for something (a session issue).
 * `token` grows by at least one with every acquisition of the same name, never
 * with a renewal: it is the fencing token every leader write carries.
 */
export interface Lease {
  name: string;
  holder: string;
  token: number;
  /** Unix ms, by the store's clock. */
  expiresAtMs: number;
}

/** What a leader write carries; the store refuses it (StaleLeaseError) unless `token` is the lease's current one. */
export type Fence = Pick<Lease, "name" | "token">;

/** Per-issue bookkeeping of rollover and compaction (shown on the dashboard, followed by `history`). */
export const IssueMetaSchema = z.object({
  /** The issue this one continues (rollover), if any. */
  predecessor: z.number().int().positive().optional(),
  /** The issue that continues this one, once rolled over. */
  successor: z.number().int().positive().optional(),
  /** Comments carried to the successor (original id → copy id), so a save racing the rollover is carried after it, once. */
  carried: z.array(z.object({ from: z.number().int().positive(), to: z.number().int().positive() })).optional(),
  /**
   * The control boxes of the issue body the bot last saw or wrote (controlBoxesOf): a restart diffs the
   * body against them, so a box a person ticked while the bot was down is not lost (issue 28.4).
   */
  boxesSeen: z.string().max(1_000_000).optional(),
  /**
   * Box changes found on restart and not run, because the issue's poster may not command (issue 28.4): the
   * dashboard shows each with the command that confirms it, until a command for its agent+session is accepted.
   */
  unconfirmed: z
    .array(
      z.object({
        action: ControlActionSchema,
        agent: z.string().max(1000),
        session: z.string().max(1000),
        target: z.number().int().positive().optional(),
      }),
    )
    .max(200)
    .optional(),
  compaction: z
    .object({
      deleted: z.number().int().min(0),
      archived: z.number().int().min(0),
      /** browser_download_url of the newest archive asset. */
      archiveUrl: z.string().optional(),
      lastRunAt: z.string().optional(),
    })
    .optional(),
});
export type IssueMeta = z.infer<typeof IssueMetaSchema>;

/** Options every implementation accepts. */
export interface ProjectionStoreOptions {
  /** The store's clock for lease expiry (tests move it); default Date.now. */
  now?: () => number;
}

/**
 * The comments an issue's deliveries, polls and reconciles folded in: the newest version of each
 * (tombstones for deletes), the watermark of the incremental reads, the delivery ids already applied.
 */
export interface CommentLog {
  /**
   * Fold one delivery's events into the stored comments, atomically: if
   * `deliveryId` (X-Forgejo-Delivery) was applied before, nothing changes
   * (`duplicate: true`); otherwise the id is recorded and each event applied by
   * comment id and version (newest updatedAt, ties by larger hash, as the
   * projection does; deletes are for good). Polls and reconciles pass
   * `deliveryId: null` (no delivery to dedupe). Advances the watermark.
   */
  applyDelivery(issue: IssueKey, deliveryId: string | null, events: readonly CommentEvent[]): Promise<ApplyResult>;
  /**
   * The stored comments of the issue, tombstones included, ascending by id:
   * every one, or a page (`afterId`, `limit`: a restart reads the store page by
   * page, never all bodies at once), or only the given `ids` (an entry's history).
   */
  comments(issue: IssueKey, query?: CommentQuery): Promise<StoredComment[]>;
  /** Number of live (not deleted) comments. */
  commentCount(issue: IssueKey): Promise<number>;
  watermark(issue: IssueKey): Promise<Watermark | null>;
  /**
   * Forget everything stored about an issue (`checkpost rebuild`): its comments and, in a whole
   * ProjectionStore, its entries, alerts and meta too. Leases and claimed commands are kept.
   */
  clearIssue(issue: IssueKey): Promise<void>;
  /** Issues with anything stored. */
  issues(): Promise<IssueKey[]>;
  /** Delivery ids older than this are forgotten (Forgejo redelivers only recent ones). Returns how many. */
  pruneDeliveries(olderThanMs: number): Promise<number>;
}

/** What the bot derived from the comments: per agent+session entries, the sealed projection state, the resume index written. */
export interface EntryView {
  /**
   * The bot's projection state of the issue as JSON text (what a bounded
   * projection folded away, `Projection.sealedState`), so a restart parses only
   * the newest comments. Any process may write it: it names its trust policy,
   * and a stale one only costs parsing. Null when none was written.
   */
  putProjectionState(issue: IssueKey, state: string): Promise<void>;
  projectionState(issue: IssueKey): Promise<string | null>;

  /** Replace the entries of the given agent+sessions (by agent, session); `removed` keys are deleted. */
  putEntries(issue: IssueKey, entries: readonly AgentEntry[], removed?: readonly { agent: string; session: string }[]): Promise<void>;
  /** Entries sorted by agent then session (code points). */
  entries(issue: IssueKey): Promise<AgentEntry[]>;
  entry(issue: IssueKey, agent: string, session: string): Promise<AgentEntry | null>;

  putResumeIndex(fence: Fence, issue: IssueKey, index: ResumeIndex): Promise<void>;
  resumeIndex(issue: IssueKey): Promise<ResumeIndex | null>;
}

/** The leases that make one process the writer of an issue, and the fences its writes carry. */
export interface LeaseStore {
  /**
   * Take the lease if it is free or expired: a new, higher token. Null when
   * another holder's lease is unexpired. The same holder re-acquiring its own
   * live lease gets a new token too (its earlier writes are fenced off).
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease | null>;
  /** Extend a lease still held with this token; null if it was lost (expired and taken, or released). */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease | null>;
  /** Give the lease up now (only if still held with this token). */
  releaseLease(lease: Lease): Promise<void>;
  /** The lease as stored (any holder), or null when never taken: a follower reads it to notice a lapsed leader. */
  peekLease(name: string): Promise<Lease | null>;
  /** Throws StaleLeaseError unless `fence.token` is the current token of an unexpired lease. */
  checkFence(fence: Fence): Promise<void>;
}

/** The leader's bookkeeping of an issue: alerts already posted, rollover and compaction meta. */
export interface IssueBookkeeping {
  /** Record an alert as posted; false when it already was (post nothing then). */
  recordAlert(fence: Fence, issue: IssueKey, alertKey: string): Promise<boolean>;
  hasAlert(issue: IssueKey, alertKey: string): Promise<boolean>;

  issueMeta(issue: IssueKey): Promise<IssueMeta>;
  /** Merge into the stored meta (shallow, by top-level key). */
  updateIssueMeta(fence: Fence, issue: IssueKey, patch: Partial<IssueMeta>): Promise<IssueMeta>;
}

/** People's commands (slash comments, dashboard ticks) claimed once. */
export interface CommandClaims {
  /**
   * Claim a people's command (a slash comment, a dashboard tick) by its key:
   * true the first time the key is claimed for this issue, false ever after.
   * Every path a command can arrive by (webhook, redelivery, replay, poll,
   * reconcile, another replica) claims before acting, so it runs at most once.
   * `outcome` notes why (`run`, `baseline`: seen on the first read, not run).
   * Kept by clearIssue (a rebuild must not run old commands again).
   */
  claimCommand(issue: IssueKey, key: string, outcome: "run" | "baseline"): Promise<boolean>;
}

/** Every port of the bot's state, as one tracker uses them (it hands the narrower ones to its parts). */
export interface BotState extends CommentLog, EntryView, LeaseStore, IssueBookkeeping, CommandClaims {}

/**
 * The bot's durable state, per session issue: the comments it has folded
 * (CommentLog), what it derived from them (EntryView), the leases that make
 * one process the writer (LeaseStore), alerts and rollover/compaction meta
 * (IssueBookkeeping), and the people's commands it ran (CommandClaims).
 * Consumers take the narrowest port they use.
 *
 * Implemented on SQLite (one process; createSqliteProjectionStore), on
 * PostgreSQL (replicas; it adds ReplicaStore) and in memory
 * (createMemoryProjectionStore: tests). Every method is async and each one is
 * atomic: a method either applies all it was given or nothing. Methods that
 * write on behalf of the leader (Forgejo-visible effects: dashboard, alerts,
 * rollover, compaction) take a Fence and refuse a stale token, so a deposed
 * leader's late write changes nothing. The contract is
 * test/helpers/projection-store-contract.ts.
 */
export interface ProjectionStore extends BotState {
  close(): Promise<void>;
}

/** Where a replica is in an issue's change feed (opaque). */
export type FeedCursor = string;

/** A LISTEN for other replicas' changes (ReplicaStore.listenChanges); close() ends it. */
export interface ChangeListener {
  close(): Promise<void>;
}

/** One Forgejo write begun under a lease (see ReplicaStore.fencedWrite). */
export interface WriteLogRow {
  name: string;
  kind: string;
  holder: string;
  token: number;
  startedMs: number;
  endedMs: number | null;
}

/**
 * What replicas sharing one store use besides ProjectionStore (PostgreSQL, src/bot-state/postgres/): the
 * change feed of what the others stored, a heartbeat to share the leases out, and the log of Forgejo
 * writes begun under a lease.
 */
export interface ReplicaStore {
  /** False after a call failed for want of the database, until one succeeds again (readiness). */
  readonly available: boolean;
  /** True when the database answers now. */
  ping(): Promise<boolean>;
  /** The feed position now: readChanges from it returns whatever commits from here on. */
  feedCursor(): Promise<FeedCursor>;
  /** What changed on an issue since `cursor` (null: everything), as projection events, and the cursor to pass next time. */
  readChanges(issue: IssueKey, cursor: FeedCursor | null): Promise<{ events: CommentEvent[]; cursor: FeedCursor }>;
  /**
   * Call `onChange(issue)` when any replica commits a change to an issue's comments, so a follower
   * reads the feed at once instead of at its next poll. Rejects when notifications cannot be heard
   * (ChangesUnheardError behind a transaction-pooling proxy); `onLost` when the listening connection drops later.
   * `fromSelf`: the change was committed through this store's own connections (this process), as far as
   * the store can tell (false when unsure).
   */
  listenChanges(onChange: (issue: IssueKey, fromSelf?: boolean) => void, onLost: (e: Error) => void): Promise<ChangeListener>;
  /** Note that a replica is alive; returns how many were seen within `withinMs` (itself included). */
  heartbeat(replicaId: string, withinMs: number): Promise<number>;
  /** A replica stopping cleanly: it no longer counts among the live. */
  forgetReplica(replicaId: string): Promise<void>;
  /** One write to Forgejo under a lease: begun only if the fence is current (else StaleLeaseError, `write` not called), logged. */
  fencedWrite<T>(fence: Fence & { holder: string }, kind: string, write: () => Promise<T>): Promise<T>;
  /** The writes begun under leases (of one lease name, or all), oldest first. */
  writeLog(name?: string): Promise<WriteLogRow[]>;
  /** The lease as stored now, whoever holds it, and whether it is unexpired (null: never taken). */
  currentLease(name: string): Promise<(Lease & { live: boolean }) | null>;
}
