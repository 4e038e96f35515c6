import { COMMENT_KINDS, DEFAULT_READER_LIMITS } from "../protocol/index.ts";
import type { Checkpoint, KindRegistry, ReaderLimits } from "../protocol/index.ts";
import { ProtocolInputError } from "../errors.ts";
import { bodyHash } from "./body-hash.ts";
import type { TrustPolicy } from "./comment-event.ts";
import type { DerivedEntry, DeriveOptions, EntryFold } from "./derive-entry.ts";
import { DEFAULT_LEGACY_WRITERS } from "./legacy-writers.ts";
import { LiveComments } from "./live-comments.ts";
import type { Anomaly } from "./projection-snapshot.ts";
import type { RecordContext, StoredRecord, Version } from "./stored-comment.ts";

/**
 * The state one projection holds, shared by the parts of createProjection:
 * fold-comments.ts (events in), bounded-history.ts and restore-comments.ts
 * (records folded away and brought back), projection-answers.ts (reads).
 */

export interface ProjectionOptions {
  /** Bounds passed to the protocol reader. */
  readerLimits?: Partial<ReaderLimits>;
  /** The comment kinds to read (default the protocol's; see CommentKind's `project` for a kind of your own). */
  kinds?: KindRegistry;
  /**
   * Keep at most about twice this many records per agent+session in memory
   * (the bot): older ones are folded into a small state and dropped. A change
   * that reaches a dropped record (an edit or delete of it, a comment arriving
   * older than them) makes the entry ask for its history (`historyNeeded`),
   * which the caller reads from its store and gives back (`hydrate`).
   * Unset: every record is kept (one-shot readers, the CLI).
   */
  hotRecords?: number;
}

/** What `restore` takes (a StoredComment of src/projection-store). */
export interface RestoredComment {
  id: number;
  author: string;
  /** RFC 3339, as Forgejo sent it. */
  createdAt: string;
  updatedAt: string;
  htmlUrl?: string;
  /** bodyHash() of the newest version's body. */
  hash: string;
  /** More than one distinct body was ever seen for this id (an edit); sticky. */
  multi: boolean;
  /** The newest version's body for protocol comments, else null. */
  body: string | null;
  /** Deleted on Forgejo: kept as a tombstone, never brought back by a late upsert. */
  deleted: boolean;
  /** The store has a body but left it out (`CommentQuery.bodies: false`): see `claimFolded`. */
  bodyOmitted?: boolean;
}

export interface Held {
  version: Version;
  record: StoredRecord | null;
  /** Set instead of a record for a comment that is counted, not stored (see `Note`). */
  note: Note | null;
  /**
   * The entry this comment's record was folded into and dropped from (hotRecords), else null. Always
   * present (never added or deleted later) so every Held keeps one in-object shape: a property added
   * after creation gave ~47,000 Helds an extra PropertyArray at 50k comments (1.8 MiB, heap snapshot).
   */
  cold: KeyState | null;
}
/**
 * What is kept of a comment the projection does not store: a protocol (or
 * oversized) comment by an untrusted author is counted against its author,
 * and an oversized comment by a trusted author is one anomaly.
 */
export type Note = { kind: "untrusted"; author: string } | { kind: "oversized"; anomaly: Anomaly };
export interface AuthorTally {
  /** Comment id → what the anomaly line shows of it (login as written, link). */
  ids: Map<number, { login: string; htmlUrl: string | undefined }>;
  oversized: Set<number>;
}

export interface Tomb {
  version: Version | null;
  /** What the deleted comment was, if its content was ever seen and it was a checkpoint. */
  deleted: Anomaly | null;
}
export interface KeyState {
  key: string;
  agent: string;
  session: string;
  /** Comment ids whose records are held, ascending. */
  ids: number[];
  derived: DerivedEntry | null;
  /** The fold of the records dropped so far (hotRecords), all older than `ids` unless `stale`. */
  fold: EntryFold | null;
  /** Highest dropped id (0: none). */
  sealedUpTo: number;
  /** Dropped ids still in this entry, ascending. */
  coldIds: number[];
  /** Dropped ids since deleted: their tombstone's anomaly needs the body back. */
  tombIds: number[];
  /** A change reached the dropped records: `fold` is no longer right until `hydrate`. */
  stale: boolean;
}

export interface ProjectionState {
  ctx: RecordContext;
  derive: Required<DeriveOptions>;
  maxBodyBytes: number;
  hot: number | undefined;
  /** Fingerprint of what the folds depend on (see SealedState's `policy`). */
  policyPrint: string;
  live: LiveComments<KeyState, Held>;
  untrustedAuthors: Map<string, AuthorTally>;
  tombs: Map<number, Tomb>;
  keys: Map<string, KeyState>;
  unkeyed: Map<number, Anomaly>;
  maxId: number;
  maxUpdatedMs: number;
  watermarkDirty: boolean;
  /** From restoreSealed until restoreDone: the folded comments' versions, each with the entry it was folded into (`coldOf`). */
  pendingCold: LiveComments<KeyState, Held> | null;
}

/** An empty projection's state. Reads no clock. */
export function createProjectionState(policy: TrustPolicy, options: ProjectionOptions): ProjectionState {
  const ctx = {
    trustedAuthors: new Set([...policy.trustedAuthors].map((a) => a.toLowerCase())),
    ...(policy.signingKey !== undefined ? { signingKey: policy.signingKey } : {}),
    ...(options.readerLimits !== undefined ? { readerLimits: options.readerLimits } : {}),
    ...(options.kinds !== undefined ? { kinds: options.kinds } : {}),
  };
  const derive = { legacyWriters: policy.legacyWriters ?? DEFAULT_LEGACY_WRITERS };
  const maxBodyBytes = options.readerLimits?.maxBodyBytes ?? DEFAULT_READER_LIMITS.maxBodyBytes;
  const hot = options.hotRecords;
  if (hot !== undefined && (!Number.isSafeInteger(hot) || hot < 1)) throw new ProtocolInputError(`hotRecords must be a positive integer, got ${String(hot)}`);
  // The legacy-writer policy decides which checkpoints the folds believe, like the trust list.
  // Kinds of one's own change what is folded too (the protocol's alone leave the fingerprint as it was).
  const extraKinds = options.kinds?.kinds.filter((k) => !COMMENT_KINDS.some((b) => b.kind === k.kind)).map((k) => k.kind) ?? [];
  const policyPrint = bodyHash(JSON.stringify([[...ctx.trustedAuthors].sort(), ctx.signingKey ?? null, hot ?? 0, derive.legacyWriters, ...(extraKinds.length ? [extraKinds] : [])]));
  return {
    ctx,
    derive,
    maxBodyBytes,
    hot,
    policyPrint,
    live: new LiveComments(),
    untrustedAuthors: new Map(),
    tombs: new Map(),
    keys: new Map(),
    unkeyed: new Map(),
    maxId: 0,
    maxUpdatedMs: Number.NEGATIVE_INFINITY,
    watermarkDirty: false,
    pendingCold: null,
  };
}

export const deletedAnomaly = (commentId: number, cp: Omit<Checkpoint, "data">, htmlUrl: string | undefined): Anomaly => ({
  kind: "deleted-checkpoint",
  commentId,
  agent: cp.agent,
  session: cp.session,
  detail: `checkpoint "${cp.phase}"${cp.seq !== undefined ? ` (seq ${cp.seq})` : ""} was deleted`,
  ...(htmlUrl !== undefined ? { htmlUrl } : {}),
});

/** A copy that does not keep a large parent string alive (see stored-comment.ts). */
export function detachString(s: string): string {
  return s.length >= 13 ? Buffer.from(s, "utf8").toString("utf8") : s;
}
