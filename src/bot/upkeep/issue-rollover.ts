import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../../ports/issue-host.ts";
import { createProjection, entryKey } from "../../projection/index.ts";
import type { AgentEntry, CommentEvent, ProjectionSnapshot, TrustPolicy } from "../../projection/index.ts";
import type { CommentLog, Fence, IssueBookkeeping, LeaseStore } from "../../bot-state/index.ts";
import { issueKey } from "../../bot-state/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../../session-client/index.ts";
import { carriedBody, carriedFrom, carriedRoot } from "../../chain/carried-body.ts";
import { CONTROLS, formatControl, parseComment, signControl } from "../../protocol/index.ts";
import type { ControlInput } from "../../protocol/index.ts";
import { continuedInComment, continuesLine } from "../../chain/chain-links.ts";
import { NewerOnHead } from "./newer-on-head.ts";
import { adoptableSuccessor, hijackReason } from "../../chain/chain-rules.ts";

export interface RolloverDeps {
  api: IssueHost;
  store: CommentLog & IssueBookkeeping & LeaseStore;
  repo: RepoRef;
  issue: number;
  title: string;
  label: string;
  /** Live comments at which the issue rolls over (0: never). */
  rolloverAt: number;
  logger: Pick<Logger, "info" | "warn">;
  /** Start watching the successor (the tracker registry). */
  track: (issue: number) => Promise<unknown>;
  /** The bot's own login: a copy it already posted (its provenance line names the original) is recorded, not posted again. */
  selfLogin?: string;
  /** CHECKPOST_SIGNING_KEY: a carried rewind names a new target, so it is signed again. */
  signingKey?: string;
  /** The trust policy: after the rollover, what is carried from here goes into the head only when newer than what the chain holds there. */
  policy?: TrustPolicy;
  /**
   * The state of this issue's projection at its last carry into the head (kept by the caller): a closed
   * issue is checked again only when something changed on it, not on every upkeep.
   */
  lateCarry?: { checkedAt: string | null };
}

/**
 * Continue-As-New for a session issue (Temporal's term): past `rolloverAt`
 * live comments the writer opens a successor with the same title and label,
 * carries each trusted agent+session's newest checkpoint and newest health
 * signal (original bodies plus one provenance line), links the two issues both
 * ways and closes the old one. Every step is recorded in the store under the
 * writer's fence, and each is safe to repeat: a writer that dies half-way is
 * finished by the next one.
 */
export async function rollOverIfDue(d: RolloverDeps, fence: Fence, snap: ProjectionSnapshot): Promise<number | null> {
  const key = issueKey(d.repo, d.issue);
  let meta = await d.store.issueMeta(key);
  if (meta.successor === undefined) {
    if (d.rolloverAt <= 0 || snap.comments < d.rolloverAt) return null;
    // The copies carried in do not count: with more agents than the threshold, a successor would
    // otherwise roll over again at once, and again, without end.
    if (meta.predecessor !== undefined) {
      const carriedIn = ((await d.store.issueMeta(issueKey(d.repo, meta.predecessor))).carried ?? []).length;
      if (snap.comments - carriedIn < d.rolloverAt) return null;
    }
    // Created without the label: the seed's agents look issues up by title+label, and must not find
    // the successor before its carried checkpoints are there. The label goes on after the carry.
    const successor = (await findSuccessor(d)) ?? (await d.api.openSessionIssue(d.repo, { title: d.title, body: continuesLine(d.issue, snap.comments) })).number;
    meta = await d.store.updateIssueMeta(fence, key, { successor });
    d.logger.info({ issue: d.issue, successor, comments: snap.comments }, "rolling the session issue over");
  }
  const successor = meta.successor as number;
  const old = await d.api.readIssue(d.repo, d.issue);
  if (old.state !== "open") {
    // Rolled over already: a save or control that reached this issue as it closed (a seed agent found it open
    // just before) goes into the open head, which may be several rollovers on, never merely the next issue.
    await carryIntoHead(d, fence, snap, successor);
    return successor;
  }
  await carryNewest(d, fence, snap, successor);
  if (old.labels.some((l) => l.name === d.label)) await d.api.labelIssue(d.repo, successor, [d.label]);
  await d.store.updateIssueMeta(fence, issueKey(d.repo, successor), { predecessor: d.issue });
  await d.track(successor);
  await d.api.postRecord(d.repo, d.issue, continuedInComment(successor, snap.comments));
  await d.api.closeIssue(d.repo, d.issue);
  return successor;
}

/**
 * Carry what is not carried yet: each entry's newest trusted checkpoint and
 * health. Called again after every change on a rolled-over issue, so a save
 * that raced the rollover (posted on the old issue after the carry) is carried
 * too, once, and lands after the earlier copies. With `newerThan` (the
 * successor's entries), a checkpoint or health signal older (by comment id,
 * global in Forgejo) than what the successor already holds for its
 * agent+session is left alone: carrying it would put an older save on top.
 */
export async function carryNewest(
  d: Pick<RolloverDeps, "api" | "store" | "repo" | "issue" | "logger" | "selfLogin" | "signingKey" | "policy">,
  fence: Fence,
  snap: ProjectionSnapshot,
  successor: number,
  newerThan?: readonly AgentEntry[] | (() => Promise<readonly AgentEntry[]>),
): Promise<number> {
  const key = issueKey(d.repo, d.issue);
  const meta = await d.store.issueMeta(key);
  const carried = [...(meta.carried ?? [])];
  const done = new Set(carried.map((c) => c.from));
  if (typeof newerThan === "function") {
    // Folding what the head holds costs a read of the store: only when something here is not carried yet.
    const candidates = snap.entries.flatMap((e) => [e.latest?.commentId, e.health?.commentId, e.control?.paused?.commentId, e.control?.hidden?.commentId, e.control?.pending?.commentId]);
    const unpauses = await newestUnpauses(d.store, key, d.selfLogin, snap.entries);
    if (![...candidates, ...unpauses.values()].some((id) => id !== undefined && !done.has(id))) return 0;
    newerThan = await newerThan();
  }
  const there = new Map((newerThan ?? []).map((e) => [entryKey(e.agent, e.session), e]));
  const wanted: number[] = [];
  /** Controls in effect (pause, hide, a pending rewind or release): state of the session, carried too (docs/chain.md). */
  const controls = new Set<number>();
  /** Rewind targets carried only for their rewind, with the head's highest epoch for the agent+session. */
  const rewindTargets = new Map<number, number>();
  // A late carry: the successor's newest control per agent+session (a carried copy counts as its original).
  const headControls = newerThan === undefined ? null : await newestControls(d.store, issueKey(d.repo, successor), d.selfLogin);
  for (const e of snap.entries) {
    const k = entryKey(e.agent, e.session);
    const s = there.get(k);
    if (e.latest && e.latest.commentId > (s?.latest?.commentId ?? 0)) wanted.push(e.latest.commentId);
    if (e.health && e.health.commentId > (s?.health?.commentId ?? 0)) wanted.push(e.health.commentId);
    for (const [c, clearedBySignal] of [
      [e.control?.paused, false],
      [e.control?.hidden, true],
      [e.control?.pending, true],
    ] as const) {
      if (!c) continue;
      // At the rollover: every control in effect. Late (a command that reached the old issue as it closed): only
      // one newer than any control the successor has for the agent+session, so a control lifted there stays
      // lifted; a rewind, release or hide also newer than the successor's signals, which would have ended it.
      const bar = headControls === null ? 0 : Math.max(headControls.get(k) ?? 0, clearedBySignal ? Math.max(s?.latest?.commentId ?? 0, s?.health?.commentId ?? 0) : 0);
      if (c.commentId <= bar) continue;
      controls.add(c.commentId);
      wanted.push(c.commentId);
      // A rewind names its target by comment id, so the target goes too, unless it is carried already. At the
      // rollover it is the entry's latest; late (the rewind reached this issue after the rollover carried the
      // newest checkpoint) it is older than the head's, yet without it the rewind cannot be carried at all.
      const to = c === e.control?.pending ? c.to?.commentId : undefined;
      if (to !== undefined && !done.has(to) && !wanted.includes(to)) {
        wanted.push(to);
        rewindTargets.set(to, s?.maxEpoch ?? 0);
      }
    }
  }
  if (headControls !== null)
    // A late unpause (the head still holds the pause carried at the rollover): carried when newer than every
    // control the head holds for the agent+session, as a late pause is.
    for (const [k, id] of await newestUnpauses(d.store, key, d.selfLogin, snap.entries)) {
      if (!there.get(k)?.control?.paused || id <= (headControls.get(k) ?? 0)) continue;
      controls.add(id);
      wanted.push(id);
    }
  // In comment-id order: a control in effect is newer than any signal that would clear it, and a rewind's
  // target is older than the rewind, so each lands on the successor with the same meaning.
  const todo = [...new Set(wanted)].filter((id) => !done.has(id)).sort((a, b) => a - b);
  if (!todo.length) return 0;
  const rows = (await d.store.comments(key, { ids: todo })).filter((c) => c.body !== null);
  const bodies = new Map(rows.map((c) => [c.id, c.body as string]));
  /** Each save's `Id:` (parsed once; a control has none). */
  const saveIds = new Map(rows.map((c) => [c.id, controls.has(c.id) ? undefined : idOf(c.body as string)]));
  // Copies this bot already posted (a crash after the POST, before the record): only its own comments count,
  // or anyone could stop a carry by posting a provenance line.
  const posted = new Map<number, number>();
  /** Checkpoint Ids a trusted author already put on the successor (a `checkpost save` posts a late save again on the head). */
  const idsThere = new Map<string, number>();
  const newer = new NewerOnHead();
  const self = d.selfLogin?.toLowerCase();
  const trusted = d.policy?.trustedAuthors;
  const noteIds = (c: { id: number; author: string; body: string | null; deleted?: boolean }) => {
    if (c.deleted || c.body === null || !c.body.includes("[CHECKPOINT]")) return;
    const author = c.author.toLowerCase();
    if (author !== self && !trusted?.has(author)) return;
    const p = parseComment(c.body);
    if (p.kind === "checkpoint" && author !== self) newer.note(p.checkpoint.agent, p.checkpoint.session, c.id);
    if (p.kind === "checkpoint" && p.checkpoint.id !== undefined && (idsThere.get(p.checkpoint.id) ?? Number.POSITIVE_INFINITY) > c.id) idsThere.set(p.checkpoint.id, c.id);
  };
  if (self !== undefined || trusted) {
    for (const c of await d.store.comments(issueKey(d.repo, successor))) {
      const from = !c.deleted && c.author.toLowerCase() === self ? carriedFrom(c.body, d.issue) : null;
      if (from !== null) posted.set(from, c.id);
      noteIds(c);
    }
  }
  // A late carry: the save's writer may have posted it on the head a moment ago, before the store saw it.
  // One read of the head from the forge (since the oldest save to carry) settles it; late carries are rare.
  const late = rows.filter((c) => !posted.has(c.id) && saveIds.get(c.id) !== undefined);
  if (trusted && newerThan !== undefined && late.some((c) => !idsThere.has(saveIds.get(c.id) as string))) {
    const since = Math.min(...late.map((c) => Date.parse(c.createdAt)));
    for (const c of await d.api.listCommentsSince(d.repo, successor, Number.isFinite(since) ? { sinceMs: since - 60_000 } : undefined)) noteIds(c);
  }
  let count = 0;
  for (const from of todo) {
    const original = bodies.get(from);
    if (original === undefined) continue;
    const body = controls.has(from) ? carriedControl(original, carried, d.signingKey) : original;
    if (body === null) {
      d.logger.warn({ issue: d.issue, successor, commentId: from }, "a rewind in effect could not be carried: its target checkpoint was not carried");
      continue;
    }
    const headEpoch = rewindTargets.get(from);
    if (headEpoch !== undefined && epochOf(original) < headEpoch) {
      // From before a take-over the head already holds: its copy would be fenced off there (a zombie), and the
      // rewind naming it ignored, as a rewind on the head to such a checkpoint is refused (docs/chain.md).
      d.logger.warn({ issue: d.issue, successor, commentId: from }, "a rewind's target is from before a take-over the head holds: a copy would be fenced off, so the rewind is not carried");
      continue;
    }
    await d.store.checkFence(fence); // not the writer any more: stop before posting
    // The same save (same Id) already there: readers would count the copy once and flag it (duplicate-id),
    // so it is recorded as carried to that comment instead of posted again.
    const cpId = saveIds.get(from);
    const same = cpId === undefined ? undefined : idsThere.get(cpId);
    if (same === undefined && newerThan !== undefined && cpId !== undefined && newer.skips(from, original, d.logger, { issue: d.issue, successor })) continue;
    if (same !== undefined && !posted.has(from)) {
      d.logger.info({ issue: d.issue, successor, commentId: from, sameIdAs: same }, "late carry: the save is on the successor already (same Id); not posted again");
      carried.push({ from, to: same });
      await d.store.updateIssueMeta(fence, key, { carried });
      continue;
    }
    const to = posted.get(from) ?? (await d.api.postRecord(d.repo, successor, carriedBody(body, { issue: d.issue, commentId: from }))).id;
    carried.push({ from, to });
    await d.store.updateIssueMeta(fence, key, { carried });
    count++;
  }
  d.logger.info({ issue: d.issue, successor, carried: count }, "carried the newest checkpoints, health signals and controls in effect");
  return count;
}

/** A checkpoint body's epoch (a missing `Epoch:` reads as 0, as the fold reads it). */
function epochOf(body: string): number {
  const p = parseComment(body);
  return p.kind === "checkpoint" ? (p.checkpoint.epoch ?? 0) : 0;
}

/** A checkpoint body's `Id:`, if it has one. */
function idOf(body: string): string | undefined {
  if (!body.includes("[CHECKPOINT]")) return undefined;
  const p = parseComment(body);
  return p.kind === "checkpoint" ? p.checkpoint.id : undefined;
}

/**
 * Per agent+session not paused here, the bot's newest `[CONTROL]` unpause on this issue when it is the newest
 * control the bot recorded for it here (a late unpause the head may not know of).
 */
async function newestUnpauses(store: CommentLog, key: string, selfLogin: string | undefined, entries: readonly AgentEntry[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const self = selfLogin?.toLowerCase();
  // Only agents the fold says are not paused (a cheap test first: most issues have no unpause at all).
  const unpaused = new Set(entries.filter((e) => !e.control?.paused).map((e) => entryKey(e.agent, e.session)));
  if (self === undefined || !unpaused.size) return out;
  const newest = new Map<string, { id: number; unpause: boolean }>();
  for (const c of await store.comments(key)) {
    if (c.deleted || c.body === null || c.author.toLowerCase() !== self || !c.body.includes("[CONTROL]")) continue;
    const p = parseComment(c.body);
    if (p.kind !== "control") continue;
    const k = entryKey(p.control.agent, p.control.session);
    if (c.id > (newest.get(k)?.id ?? 0)) newest.set(k, { id: c.id, unpause: CONTROLS.byName(p.control.action)?.effect === "unpause" });
  }
  for (const [k, n] of newest) if (n.unpause && unpaused.has(k)) out.set(k, n.id);
  return out;
}

/**
 * After the rollover: carry what is new on this closed issue into the open head (the end of the successor
 * links the store records), when it is newer than what the issues from the successor to the head hold
 * (folded from the store, a carried copy counted as its original). Checked again only after a change here.
 */
async function carryIntoHead(d: RolloverDeps, fence: Fence, snap: ProjectionSnapshot, successor: number): Promise<number> {
  const state = `${snap.watermark}:${snap.watermarkUpdatedAt}:${snap.comments}`;
  if (d.lateCarry?.checkedAt === state) return 0;
  const chain = [successor];
  for (let i = 0; i < LATE_CARRY_DEPTH; i++) {
    const next = (await d.store.issueMeta(issueKey(d.repo, chain[chain.length - 1] as number))).successor;
    if (next === undefined) break;
    chain.push(next);
  }
  const head = chain[chain.length - 1] as number;
  const policy = d.policy;
  const bar = async (): Promise<readonly AgentEntry[]> => {
    let out: AgentEntry[] = [];
    for (const n of chain) {
      if (!policy) break;
      const p = createProjection(policy);
      for (const c of await d.store.comments(issueKey(d.repo, n))) p.restore(c);
      out = newestOf(out, await withOriginalIds(d.store, issueKey(d.repo, n), p.snapshot().entries, d.selfLogin));
    }
    return out;
  };
  const n = await carryNewest(d, fence, snap, head, policy ? bar : undefined);
  if (n) d.logger.info({ issue: d.issue, head, carried: n }, "carried saves and controls that reached a closed issue into the open head");
  if (d.lateCarry) d.lateCarry.checkedAt = state;
  return n;
}

/**
 * The entries with each latest checkpoint and health named by its original comment id (a copy the bot
 * carried, maybe over several rollovers: the comment first carried). A late carry compares with these: a save that raced the rollover's carry
 * has a lower id than the copies made then, yet it is newer than the checkpoint they copy.
 */
async function withOriginalIds(store: CommentLog, key: string, entries: readonly AgentEntry[], selfLogin: string | undefined): Promise<AgentEntry[]> {
  const ids = entries.flatMap((e) => [e.latest?.commentId, e.health?.commentId]).filter((x): x is number => x !== undefined);
  const self = selfLogin?.toLowerCase();
  if (!ids.length || self === undefined) return [...entries];
  const original = new Map<number, number>();
  for (const c of await store.comments(key, { ids })) if (c.author.toLowerCase() === self) original.set(c.id, carriedRoot(c.body) ?? c.id);
  const o = (id: number) => original.get(id) ?? id;
  return entries.map((e) => ({
    ...e,
    latest: e.latest && { ...e.latest, commentId: o(e.latest.commentId) },
    health: e.health && { ...e.health, commentId: o(e.health.commentId) },
  }));
}

/** Per agent+session, the id of the newest `[CONTROL]` the bot recorded on an issue (a carried copy: the id it was first carried from). */
async function newestControls(store: CommentLog, key: string, selfLogin: string | undefined): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const self = selfLogin?.toLowerCase();
  for (const c of await store.comments(key)) {
    if (c.deleted || c.body === null || c.author.toLowerCase() !== self) continue;
    const p = parseComment(c.body);
    if (p.kind !== "control") continue;
    const k = entryKey(p.control.agent, p.control.session);
    out.set(k, Math.max(out.get(k) ?? 0, carriedRoot(c.body) ?? c.id));
  }
  return out;
}

/**
 * A `[CONTROL]` in effect as the bot records it on the successor: the same
 * command (action, person, time, reason, fence). A rewind names its target by
 * comment id, so it points at the target's carried copy instead (re-signed
 * with the key when one is set); null when that copy is not there.
 */
function carriedControl(original: string, carried: readonly { from: number; to: number }[], signingKey: string | undefined): string | null {
  const p = parseComment(original);
  if (p.kind !== "control" || !CONTROLS.byName(p.control.action)?.target) return original;
  const { version: _v, signature: _s, timestamp, ...c } = p.control;
  const target = carried.find((x) => x.from === c.target)?.to;
  if (target === undefined) return null;
  const input: ControlInput = { ...c, target, timestamp: timestamp ?? "unknown" };
  if (signingKey) input.signature = signControl({ ...input, version: "1.0" }, signingKey);
  return formatControl(input);
}

/** How long the successor's writer holds the predecessor's lease while it checks it for late saves. */
const LATE_CARRY_LEASE_MS = 30_000;

export interface LateCarryDeps {
  api: IssueHost;
  store: CommentLog & IssueBookkeeping & LeaseStore;
  repo: RepoRef;
  /** The successor: the issue whose writer checks. */
  issue: number;
  policy: TrustPolicy;
  selfLogin: string;
  logger: Pick<Logger, "info" | "warn">;
  /** The successor's entries now (see carryNewest's `newerThan`). */
  entries: readonly AgentEntry[];
  /** Who held a predecessor's lease when last logged (kept by the caller): said once per holder, not every reconcile. */
  heldBy?: Map<number, string | null>;
  readWindowSize?: number;
}

/**
 * After a restart the bot watches only open issues, so a save an agent posts
 * on an issue of the chain after that issue was closed would reach only chain
 * readers. The head's writer therefore checks its closed predecessors (up to
 * LATE_CARRY_DEPTH back) on start and on reconcile: one incremental read of
 * each from what the store holds of it (a full read when it holds nothing),
 * folded into the store, then the same carry as during the rollover, into the
 * head itself, recorded in that predecessor's `carried` list. It runs under the predecessor's own lease (a fresh holder name), so
 * it never overlaps the predecessor's tracker, here or in another replica:
 * if that lease is held, its holder carries, and this returns 0.
 */
export async function carryLateSaves(d: LateCarryDeps): Promise<number> {
  let total = 0;
  // Nearest first. What a nearer issue holds (carried or not) is the bar for the older ones: a late save
  // there is carried only when it is newer (comment ids are global), so the head ends with the newest.
  let bar: readonly AgentEntry[] = await withOriginalIds(d.store, issueKey(d.repo, d.issue), d.entries, d.selfLogin);
  let next = d.issue;
  for (let depth = 0; depth < LATE_CARRY_DEPTH; depth++) {
    const predecessor = (await d.store.issueMeta(issueKey(d.repo, next))).predecessor;
    if (predecessor === undefined) break;
    const r = await carryLateFrom(d, predecessor, next, bar);
    if (r === null) break;
    total += r.carried;
    bar = newestOf(bar, r.entries);
    next = predecessor;
  }
  return total;
}

/** At most this many closed issues back from the head are checked for late saves (docs/chain.md). */
export const LATE_CARRY_DEPTH = 8;

/** Per agent+session, the entry whose latest (and health) is newest of the two lists. */
function newestOf(a: readonly AgentEntry[], b: readonly AgentEntry[]): AgentEntry[] {
  const by = new Map(a.map((e) => [entryKey(e.agent, e.session), e]));
  for (const e of b) {
    const held = by.get(entryKey(e.agent, e.session));
    if (!held) by.set(entryKey(e.agent, e.session), e);
    else
      by.set(entryKey(e.agent, e.session), {
        ...held,
        latest: (e.latest?.commentId ?? 0) > (held.latest?.commentId ?? 0) ? e.latest : held.latest,
        health: (e.health?.commentId ?? 0) > (held.health?.commentId ?? 0) ? e.health : held.health,
      });
  }
  return [...by.values()];
}

/** One closed predecessor: read what is new there, carry its late saves into the head. Null: the chain is broken here. */
async function carryLateFrom(d: LateCarryDeps, predecessor: number, next: number, bar: readonly AgentEntry[]): Promise<{ carried: number; entries: AgentEntry[] } | null> {
  const key = issueKey(d.repo, predecessor);
  if ((await d.store.issueMeta(key)).successor !== next) return null;
  const lease = await d.store.acquireLease(key, `late-carry:${randomUUID()}`, LATE_CARRY_LEASE_MS);
  // Held: that issue's own tracker (here or in another replica) carries what reaches it into the head
  // (rollOverIfDue, after every change there); older issues wait for the next check, so nothing older is
  // carried past what this one may still carry.
  if (!lease) {
    const holder = (await d.store.peekLease(key))?.holder ?? null;
    if (d.heldBy?.get(predecessor) !== holder) d.logger.info({ issue: d.issue, predecessor, holder }, "late carry: the closed predecessor's lease is held; its holder carries into the head");
    d.heldBy?.set(predecessor, holder);
    return null;
  }
  const fence: Fence = { name: lease.name, token: lease.token };
  try {
    const watermark = await d.store.watermark(key);
    const upserts = (list: Awaited<ReturnType<IssueHost["listCommentsSince"]>>): CommentEvent[] => list.map((c) => ({ type: "upsert", comment: toCommentRecord(c) }));
    if (watermark) {
      await d.store.applyDelivery(key, null, upserts(await d.api.listCommentsSince(d.repo, predecessor, { sinceMs: watermark.updatedAtSecond * 1000 })));
    } else {
      const batches: CommentEvent[][] = [];
      await forEachCommentBatch(d.api, d.repo, predecessor, (b) => void batches.push(upserts(b)), d.readWindowSize ? { windowSize: d.readWindowSize } : {});
      for (const b of batches) await d.store.applyDelivery(key, null, b);
    }
    const p = createProjection(d.policy);
    for (const c of await d.store.comments(key)) p.restore(c);
    const snap = p.snapshot();
    // Into the head (d.issue), not merely the next issue, which may itself be closed by now.
    const n = await carryNewest({ api: d.api, store: d.store, repo: d.repo, issue: predecessor, logger: d.logger, selfLogin: d.selfLogin, policy: d.policy }, fence, snap, d.issue, bar);
    if (n) d.logger.info({ issue: d.issue, predecessor, carried: n }, "carried saves posted on a closed predecessor into the open head");
    return { carried: n, entries: await withOriginalIds(d.store, key, snap.entries, d.selfLogin) };
  } finally {
    await d.store.releaseLease(lease).catch(() => {}); // it runs out by itself
  }
}

/**
 * A successor created by an earlier attempt that died before recording it
 * (found by the marker in its body). Only an issue the bot's own login opened
 * is adopted (src/chain/chain-rules.ts): anyone who may open an issue can
 * write the marker, and adopting theirs would hand them the head of the chain
 * (issue 19). Any other issue with the marker is logged as an anomaly and
 * left alone: never labelled, carried into or closed. Without the bot's
 * login nothing is adopted (a fresh successor is opened).
 */
async function findSuccessor(d: RolloverDeps): Promise<number | null> {
  // Every page: a hijacker's issues must not push the bot's own off page one. Newest first.
  const issues = await d.api.findSessionIssues(d.repo, { state: "open", title: d.title });
  const o = { previous: d.issue, title: d.title, botLogin: d.selfLogin ?? "" };
  for (const i of issues) {
    const why = hijackReason(i, o);
    if (why) d.logger.warn({ issue: d.issue, candidate: i.number, opener: i.author }, `rollover anomaly: ${why}`);
  }
  if (d.selfLogin === undefined) return null;
  return issues.find((i) => adoptableSuccessor(i, o))?.number ?? null;
}
