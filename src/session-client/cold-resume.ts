import type { HostComment, HostIssue, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { HostError } from "../errors.ts";
import { parseComment } from "../protocol/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { DEFAULT_LEGACY_WRITERS, createProjection, joinSignals } from "../projection/index.ts";
import type { AgentEntry, CommentRecord, ResumeAnswer, TrustPolicy } from "../projection/index.ts";
import { extractResumeIndex, extractResumeIndexFromComment, extractResumeIndexRef, resumeIndexScope, resumeIndexTailSinceMs } from "../dashboard/index.ts";
import type { ResumeIndex, ResumeIndexEntry, ResumeIndexRef } from "../dashboard/index.ts";
import { successorNamed } from "../chain/chain-rules.ts";
import { commentOnIssue } from "./comment-on-issue.ts";
import { toCommentRecord } from "./to-comment-record.ts";
import { readAllComments } from "./read-all-comments.ts";

export interface ColdResumeInput {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  /** May be a promise: it is awaited only after the reads are under way (saves a round trip). */
  policy: TrustPolicy | Promise<TrustPolicy>;
  agent: string;
  session: string;
  map: Readonly<PhaseMap>;
  /** See readAllComments. */
  readWindowSize?: number;
  /** The issue, already read (the chain walk reads it): saves the first GET. */
  issueMeta?: HostIssue;
  /** false: never read every comment; when the index cannot answer, say so (`via: "none"`) instead. */
  fullRead?: boolean;
}

/**
 * `entry`: the agent+session as the read folded it, for the one resume decision (decideResume).
 * `indexRef`: where the index comment is, for the caller's cache (coldResumeFromHint).
 */
export type ColdResumeAnswer = ResumeAnswer & {
  maxEpoch: number;
  via: "index" | "full" | "none";
  entry: AgentEntry | null;
  indexRef?: ResumeIndexRef;
  /** When an index was located: the agent+sessions it lists and their resume points (a save's "new agent" hint; never a trust decision). */
  indexed?: { agent: string; session: string; commentId: number }[];
};

type Found = { index: ResumeIndex; writtenAt: string; listed?: { comments: HostComment[]; sinceMs: number }; ref?: ResumeIndexRef };
type Signing = { key: string; scope: string } | undefined;

const trustedSet = (policy: TrustPolicy) => new Set([...policy.trustedAuthors].map((a) => a.toLowerCase()));
const signingOf = (policy: TrustPolicy, input: ColdResumeInput): Signing =>
  policy.signingKey ? { key: policy.signingKey, scope: resumeIndexScope(input.repo.owner, input.repo.repo, input.issue) } : undefined;

/**
 * The answer from what was read. `join`: the read is an index's tail, so the entry's liveness inputs are
 * the index's (as of its watermark) joined with the trusted signals above the watermark; the records at
 * or below it (the pointed checkpoint, controls, rewind targets) are already counted in the index's.
 */
function answer(records: CommentRecord[], input: ColdResumeInput, policy: TrustPolicy, via: "index" | "full", join?: { watermark: number; entry: ResumeIndexEntry }): ColdResumeAnswer {
  const p = createProjection(policy);
  p.replaceAll(records);
  let entry = p.entry(input.agent, input.session);
  if (entry && join) {
    // The fold runs in comment-id order, so the signals of the records up to the watermark come first.
    const below = createProjection(policy);
    below.replaceAll(records.filter((r) => r.id <= join.watermark));
    const after = p.signalTimes(input.agent, input.session).slice(below.signalTimes(input.agent, input.session).length);
    entry = { ...entry, ...joinSignals({ lastSignalAt: join.entry.signalAt ?? null, intervalsMs: join.entry.gapsMs ?? [] }, after) };
  }
  return { ...p.resume(input.agent, input.session, input.map), maxEpoch: entry?.maxEpoch ?? 0, via, entry };
}

/** The pointed comment is what the entry says: this agent+session's checkpoint, its Id/Seq/Epoch, not below the entry's fence. */
function matchesEntry(c: HostComment, e: ResumeIndexEntry, input: ColdResumeInput, trusted: ReadonlySet<string>): boolean {
  if (!trusted.has(c.author.toLowerCase())) return false;
  const p = parseComment(c.body);
  if (p.kind !== "checkpoint") return false;
  const cp = p.checkpoint;
  return (
    cp.agent === input.agent &&
    cp.session === input.session &&
    cp.id === e.id &&
    cp.seq === e.seq &&
    (cp.epoch ?? 0) === (e.epoch ?? 0) &&
    // A rewind or release (read with the entry's controls) raises the fence above the resume point;
    // otherwise the resume point is the checkpoint that set the fence.
    ((cp.epoch ?? 0) >= e.maxEpoch || (e.controls?.length ?? 0) > 0)
  );
}

/**
 * How far below the index's watermark (in comment ids) the pointed comment may
 * be for it to be read with the tail in one `since` request. Comment ids are
 * global to the instance, so the gap bounds how many comments were created
 * after it up to the watermark: the one read costs at most this many extra
 * comments (~1.5 KiB each) instead of a second request.
 */
export const ONE_READ_MAX_ID_GAP = 32;

/**
 * Resume without the bot. When the issue body carries the bot's resume index,
 * read the issue, then the one indexed comment and the tail of comments
 * updated since the index's watermark (one `since` read when the indexed
 * comment is recent, see ONE_READ_MAX_ID_GAP; else both at once); otherwise
 * (or when anything does not check out) read every comment. The index is only
 * a hint that anyone who can edit the issue can rewrite (docs/security.md):
 * with a signing key it must carry a valid signature for this issue; always,
 * the comment it points to must be on this issue, by a trusted author, be the
 * checkpoint the entry describes and not below its fence, and pass the same
 * trust rules as any other; and the watermark may not be later than the
 * issue's own `updated_at`. A missing entry is believed only from a signed,
 * complete index. Without a key, a writer can still point a worker back at an
 * older trusted checkpoint of the same agent+session; never at a forged one
 * or another issue's.
 */
export async function coldResume(input: ColdResumeInput): Promise<ColdResumeAnswer> {
  const { api, repo, issue } = input;
  const meta = input.issueMeta ?? (await api.readIssue(repo, issue));
  const policy = await input.policy;
  const full = async (): Promise<ColdResumeAnswer> =>
    input.fullRead === false
      ? { ...answer([], input, policy, "full"), via: "none" }
      : answer((await readAllComments(api, repo, issue, { issueMeta: meta, ...(input.readWindowSize ? { windowSize: input.readWindowSize } : {}) })).map(toCommentRecord), input, policy, "full");
  const signing = signingOf(policy, input);
  const found = await locateIndex(input, meta, signing, trustedSet(policy));
  const fromFound = found && (await fromIndex(input, policy, found, signing));
  const r = fromFound ?? (await full());
  // What the located index lists, also when it could not answer for this agent+session (a new agent has
  // no entry, and an unsigned index is not believed about a missing one): a hint for messages, never trust.
  return found ? { ...r, indexed: found.index.entries.map((e) => ({ agent: e.agent, session: e.session, commentId: e.commentId })) } : r;
}

/**
 * The warm path: the index comment's id and a `since` remembered from an earlier read of this
 * issue (the CLI's issue cache) replace the read of the issue. One `since` read returns the index
 * comment (the bot edits it only after reading up to that time, so it is always listed) and the
 * tail; a checkpoint older than the tail is fetched by id, with its controls in effect and refused
 * newer checkpoints older than the tail (one request each, all at once): 2 round trips whatever their
 * age, signed or not; 2 requests when only the checkpoint is older. The index comment is checked as on the cold path (trusted
 * author, signature with a key, watermark not after its own `updated_at`, the listed tail reaching
 * back to the watermark), and so is everything it points to. null (the caller reads the issue and
 * takes the cold path): the comment is gone, edited by someone else, not an index, the tail has a
 * hole, a trusted `continued-in` comment says the issue rolled over, or any check fails.
 */
export async function coldResumeFromHint(input: ColdResumeInput & { indexHint: ResumeIndexRef }): Promise<ColdResumeAnswer | null> {
  const sinceMs = Date.parse(input.indexHint.since);
  if (Number.isNaN(sinceMs)) return null;
  const comments = await input.api.listCommentsSince(input.repo, input.issue, { sinceMs });
  const policy = await input.policy;
  const trusted = trustedSet(policy);
  // Rolled over since: the open head is elsewhere (the caller follows the chain from the issue).
  if (successorNamed(comments, trusted)) return null;
  const holder = comments.find((c) => c.id === input.indexHint.comment && trusted.has(c.author.toLowerCase()));
  if (!holder || !commentOnIssue(holder, input.repo, input.issue)) return null;
  const signing = signingOf(policy, input);
  const index = extractResumeIndexFromComment(holder.body, signing ? { signing } : {});
  if (!index) return null;
  return fromIndex(input, policy, { index, writtenAt: holder.updatedAt, listed: { comments, sinceMs }, ref: { comment: holder.id, since: input.indexHint.since } }, signing);
}

/** The answer from a located index, or null when anything does not check out (the caller reads more). */
async function fromIndex(input: ColdResumeInput, policy: TrustPolicy, found: Found, signing: Signing): Promise<ColdResumeAnswer | null> {
  const { api, repo, issue } = input;
  // Any doubt: null, and the caller reads more (every comment, or the issue first).
  const full = async (): Promise<null> => null;
  const { index } = found;
  if (!index.watermarkUpdatedAt) return full();
  // The bot writes the index after reading up to its watermark, so where it is written (the body, or the index comment) was updated no earlier.
  const watermarkMs = Date.parse(index.watermarkUpdatedAt);
  if (watermarkMs > Date.parse(found.writtenAt)) return full();
  // The tail starts at the watermark, or later at the index's "complete up to" time (every comment updated
  // before it was read when the index was written: the watermark's own second is not listed again).
  const tailSinceMs = resumeIndexTailSinceMs(index, found.writtenAt);
  // From the index comment: the comments listed with it must reach back to the tail's start, or the tail has a hole.
  if (found.listed && found.listed.sinceMs > tailSinceMs) return full();
  // The index was folded under the writer's legacy-writer policy: under another, what it points to may not be the answer.
  if ((index.legacyWriters ?? DEFAULT_LEGACY_WRITERS) !== (policy.legacyWriters ?? DEFAULT_LEGACY_WRITERS)) return full();
  const entry = index.entries.find((e) => e.agent === input.agent && e.session === input.session);
  // No entry: a fresh agent, or one the index left out (or a writer removed). Only a signed, complete index can say which.
  if (!entry && !(signing && index.complete === true)) return full();
  // Written before the index carried liveness: only a full read can answer it as every reader does.
  if (entry && entry.signalAt === undefined) return full();

  // Reading from earlier than the watermark only adds real comments of this issue: never less safe, only more bytes.
  const atMs = entry?.at !== undefined ? Date.parse(entry.at) : Number.NaN;
  // Recent (few ids below the watermark), or in the watermark's own second (the tail holds it anyway).
  const oneRead = !Number.isNaN(atMs) && entry !== undefined && (index.watermark - entry.commentId <= ONE_READ_MAX_ID_GAP || Math.floor(atMs / 1000) >= Math.floor(tailSinceMs / 1000));
  const sinceMs = oneRead ? Math.min(tailSinceMs, atMs) : tailSinceMs;
  // The index comment came with the tail already: what it lacks is fetched by id below.
  const tail = found.listed ? Promise.resolve(found.listed.comments) : api.listCommentsSince(repo, issue, { sinceMs });
  tail.catch(() => {}); // awaited below; never an unhandled rejection if we leave early
  // Not recent: fetch the pointed comment beside the tail (same round trip).
  const pointedFetch = entry && !oneRead && !found.listed ? api.readRecord(repo, entry.commentId) : null;
  pointedFetch?.catch(() => {});
  const listed = await tail;
  const byId = new Map(listed.map((c) => [c.id, c]));
  /** A comment the index names: from the tail when it is there, else by id (null: deleted). */
  const named = async (id: number, fetched: Promise<HostComment> | null = null): Promise<HostComment | null> => {
    const held = byId.get(id);
    if (held) return held;
    try {
      return await (fetched ?? api.readRecord(repo, id));
    } catch (e) {
      if (e instanceof HostError && e.reason === "not-found") return null;
      throw e;
    }
  };
  // What the tail does not hold is fetched by id, all at once: the pointed comment, the controls, the not-used ones.
  const [pointedComment, controlComments, notUsedComments] = await Promise.all([
    entry ? named(entry.commentId, pointedFetch) : null,
    Promise.all((entry?.controls ?? []).map((id) => named(id))),
    Promise.all((entry?.notUsed ?? []).map((id) => named(id))),
  ]);
  let pointed: CommentRecord | null = null;
  if (entry) {
    const c = pointedComment;
    if (!c) return full(); // deleted since the index was written
    const trusted = trustedSet(policy);
    if (!commentOnIssue(c, repo, issue) || !matchesEntry(c, entry, input, trusted)) return full();
    pointed = toCommentRecord(c);
  }
  // Controls in effect (pause, hide, a pending rewind or release) are read with the pointed comment.
  const controls: CommentRecord[] = [];
  for (const c of controlComments) {
    if (!c) return full();
    if (!commentOnIssue(c, repo, issue)) return full(); // a writer may point at another issue's controls too
    controls.push(toCommentRecord(c));
  }
  // Newer refused checkpoints the index names (zombies…), so the answer's not_used says why they were skipped.
  const skipped: CommentRecord[] = [];
  for (const c of notUsedComments) {
    // Deleted since, or another issue's: left out (they are only reported, and a full read would not see them either).
    if (c && commentOnIssue(c, repo, issue)) skipped.push(toCommentRecord(c));
  }
  const records = listed.map(toCommentRecord);
  for (const extra of [...controls, ...skipped, ...(pointed ? [pointed] : [])]) if (!records.some((r) => r.id === extra.id)) records.unshift(extra);
  // A rewind in the tail (given after the index was written: during a dashboard hold, say) names a
  // checkpoint older than the tail. Without it the fold cannot place the rewind and would resume past
  // it, so the target is read by id (deleted, or another issue's: the full read decides).
  // Only trusted authors' controls (issue 28.2): the author is checked before any fetch, so a commenter's
  // records cost no request, and one with a bad target cannot send the reader to a full read. The rest are
  // fetched all at once (one round trip, whatever their number).
  const trusted = trustedSet(policy);
  const targets = new Set<number>();
  for (const c of listed) {
    if (!trusted.has(c.author.toLowerCase())) continue;
    const p = parseComment(c.body);
    if (p.kind === "control" && p.control.agent === input.agent && p.control.session === input.session && p.control.target !== undefined) targets.add(p.control.target);
  }
  const held = new Set(records.map((r) => r.id));
  const fetched = await Promise.all([...targets].filter((id) => !held.has(id)).map((id) => named(id)));
  for (const c of fetched) {
    if (!c || !commentOnIssue(c, repo, issue)) return full();
    records.push(toCommentRecord(c));
  }
  records.sort((a, b) => a.id - b.id);
  const result = answer(records, input, policy, "index", entry ? { watermark: index.watermark, entry } : undefined);
  if (entry) {
    // Trust the shortcut only when it found what the index promised (or something newer).
    // Older than the index's is right only when a rewind the read holds went back to it.
    const rewoundTo = result.directive?.to?.commentId ?? null;
    if (!result.checkpoint || (result.checkpoint.commentId < entry.commentId && result.checkpoint.commentId !== rewoundTo)) return full();
    // A higher epoch than the shortcut can see exists (its checkpoint deleted, say): only the full read can fence correctly.
    if (result.maxEpoch < entry.maxEpoch) return full();
    // A comment the index lists as not used (a zombie) came out as the resume point: the short read lacks the
    // control that fenced it (a release older than the tail, superseded by a newer one). Only the full read decides.
    if (entry.notUsed?.includes(result.checkpoint.commentId)) return full();
    // Likewise any other checkpoint below the index's fence: a believed one after the index is at or above it.
    const cp = result.checkpoint;
    if (cp.commentId !== entry.commentId && cp.commentId !== rewoundTo && cp.epoch !== undefined && cp.epoch < entry.maxEpoch) return full();
  }
  // For the caller's cache: next time, the tail from where this index's starts (the comment is updated no earlier).
  return found.ref
    ? { ...result, indexRef: { comment: found.ref.comment, since: tailSinceMs === watermarkMs ? index.watermarkUpdatedAt : (index.completeBefore ?? index.watermarkUpdatedAt) } }
    : result;
}

/**
 * Where the index comes from: the body's dashboard section (a small index is kept inline), else the
 * comment the section points to (docs/dashboard.md), read with the tail in one request: the list of
 * comments updated since the pointer's `since`, which holds the index comment (the bot edits it after
 * reading up to that time) and everything newer. Listed from this issue's own endpoint, the index
 * comment is on this issue. It is believed only when a trusted login wrote it (the bot's, which must
 * be trusted anyway: it writes the carried checkpoints), as the Python client does: a writer can point
 * the body at a comment of their own. It is then checked exactly as the inline index is.
 * `writtenAt` is when its holder was last updated.
 */
async function locateIndex(input: ColdResumeInput, meta: { body: string; updatedAt: string }, signing: Signing, trusted: ReadonlySet<string>): Promise<Found | null> {
  const inline = extractResumeIndex(meta.body, signing ? { signing } : {});
  if (inline) return { index: inline, writtenAt: meta.updatedAt };
  const ref = extractResumeIndexRef(meta.body);
  if (!ref) return null;
  const sinceMs = Date.parse(ref.since);
  const comments = await input.api.listCommentsSince(input.repo, input.issue, { sinceMs });
  const holder = comments.find((c) => c.id === ref.comment && trusted.has(c.author.toLowerCase()));
  const index = holder ? extractResumeIndexFromComment(holder.body, signing ? { signing } : {}) : null;
  return holder && index ? { index, writtenAt: holder.updatedAt, listed: { comments, sinceMs }, ref } : null;
}
