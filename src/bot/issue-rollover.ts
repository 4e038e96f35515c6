import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { forgejoTime } from "../forgejo/index.ts";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import { createProjection, entryKey } from "../projection/index.ts";
import type { AgentEntry, CommentEvent, ProjectionSnapshot, TrustPolicy } from "../projection/index.ts";
import type { Fence, ProjectionStore } from "../projection-store/index.ts";
import { issueKey } from "../projection-store/index.ts";
import { forEachCommentBatch, toCommentRecord } from "../store/index.ts";
import { carriedBody, carriedFrom } from "../rollover/carried-body.ts";
import { continuedFrom, continuedInComment, continuesLine } from "../rollover/chain-links.ts";

export interface RolloverDeps {
  api: ForgejoApi;
  store: ProjectionStore;
  repo: RepoRef;
  issue: number;
  title: string;
  label: string;
  /** Live comments at which the issue rolls over (0: never). */
  rolloverAt: number;
  logger: Pick<Logger, "info" | "warn">;
  /** Start watching the successor (the tracker registry). */
  track: (issue: number) => Promise<unknown>;
  /**
   * The bot's own login: a copy it already posted (its provenance line names the original) is
   * recorded instead of posted again, which closes the window between a copy's POST and its record.
   */
  selfLogin?: string;
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
    // Created without the label: the seed's agents look issues up by title+label, and must not find
    // the successor before its carried checkpoints are there. The label goes on after the carry.
    const successor = (await findSuccessor(d)) ?? (await d.api.createIssue(d.repo, { title: d.title, body: continuesLine(d.issue, snap.comments) })).number;
    meta = await d.store.updateIssueMeta(fence, key, { successor });
    d.logger.info({ issue: d.issue, successor, comments: snap.comments }, "rolling the session issue over");
  }
  const successor = meta.successor as number;
  await carryNewest(d, fence, snap, successor);
  const old = await d.api.getIssue(d.repo, d.issue);
  if (old.state === "open") {
    const label = old.labels.find((l) => l.name === d.label);
    if (label) await d.api.addIssueLabels(d.repo, successor, [label.id]);
    await d.store.updateIssueMeta(fence, issueKey(d.repo, successor), { predecessor: d.issue });
    await d.track(successor);
    await d.api.createComment(d.repo, d.issue, continuedInComment(successor, snap.comments));
    await d.api.editIssue(d.repo, d.issue, { state: "closed" });
  }
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
  d: Pick<RolloverDeps, "api" | "store" | "repo" | "issue" | "logger" | "selfLogin">,
  fence: Fence,
  snap: ProjectionSnapshot,
  successor: number,
  newerThan?: readonly AgentEntry[],
): Promise<number> {
  const key = issueKey(d.repo, d.issue);
  const meta = await d.store.issueMeta(key);
  const carried = [...(meta.carried ?? [])];
  const done = new Set(carried.map((c) => c.from));
  const there = new Map((newerThan ?? []).map((e) => [entryKey(e.agent, e.session), e]));
  const wanted: number[] = [];
  for (const e of snap.entries) {
    const s = there.get(entryKey(e.agent, e.session));
    if (e.latest && e.latest.commentId > (s?.latest?.commentId ?? 0)) wanted.push(e.latest.commentId);
    if (e.health && e.health.commentId > (s?.health?.commentId ?? 0)) wanted.push(e.health.commentId);
  }
  const todo = wanted.filter((id) => !done.has(id)).sort((a, b) => a - b);
  if (!todo.length) return 0;
  const bodies = new Map((await d.store.comments(key, { ids: todo })).filter((c) => c.body !== null).map((c) => [c.id, c.body as string]));
  // Copies this bot already posted (a crash after the POST, before the record): only its own comments count,
  // or anyone could stop a carry by posting a provenance line.
  const posted = new Map<number, number>();
  if (d.selfLogin !== undefined) {
    const self = d.selfLogin.toLowerCase();
    for (const c of await d.store.comments(issueKey(d.repo, successor))) {
      const from = !c.deleted && c.author.toLowerCase() === self ? carriedFrom(c.body, d.issue) : null;
      if (from !== null) posted.set(from, c.id);
    }
  }
  let count = 0;
  for (const from of todo) {
    const body = bodies.get(from);
    if (body === undefined) continue;
    await d.store.checkFence(fence); // not the writer any more: stop before posting
    const to = posted.get(from) ?? (await d.api.createComment(d.repo, successor, carriedBody(body, { issue: d.issue, commentId: from }))).id;
    carried.push({ from, to });
    await d.store.updateIssueMeta(fence, key, { carried });
    count++;
  }
  d.logger.info({ issue: d.issue, successor, carried: count }, "carried the newest checkpoints and health signals");
  return count;
}

/** How long the successor's writer holds the predecessor's lease while it checks it for late saves. */
const LATE_CARRY_LEASE_MS = 30_000;

export interface LateCarryDeps {
  api: ForgejoApi;
  store: ProjectionStore;
  repo: RepoRef;
  /** The successor: the issue whose writer checks. */
  issue: number;
  policy: TrustPolicy;
  selfLogin: string;
  logger: Pick<Logger, "info" | "warn">;
  /** The successor's entries now (see carryNewest's `newerThan`). */
  entries: readonly AgentEntry[];
  readWindowSize?: number;
}

/**
 * After a restart the bot watches only open issues, so a save an agent posts
 * on the issue this one continues, after that issue was closed, would reach
 * only chain readers. The successor's writer therefore checks the predecessor
 * on start and on reconcile: one incremental read from what the store holds
 * of it (a full read when it holds nothing), folded into the store, then the
 * same carry as during the rollover, recorded in the predecessor's `carried`
 * list. It runs under the predecessor's own lease (a fresh holder name), so
 * it never overlaps the predecessor's tracker, here or in another replica:
 * if that lease is held, its holder carries, and this returns 0.
 */
export async function carryLateSaves(d: LateCarryDeps): Promise<number> {
  const succKey = issueKey(d.repo, d.issue);
  const predecessor = (await d.store.issueMeta(succKey)).predecessor;
  if (predecessor === undefined) return 0;
  const key = issueKey(d.repo, predecessor);
  if ((await d.store.issueMeta(key)).successor !== d.issue) return 0;
  const lease = await d.store.acquireLease(key, `late-carry:${randomUUID()}`, LATE_CARRY_LEASE_MS);
  if (!lease) return 0;
  const fence: Fence = { name: lease.name, token: lease.token };
  try {
    const watermark = await d.store.watermark(key);
    const upserts = (list: Awaited<ReturnType<ForgejoApi["listComments"]>>): CommentEvent[] => list.map((c) => ({ type: "upsert", comment: toCommentRecord(c) }));
    if (watermark) {
      await d.store.applyDelivery(key, null, upserts(await d.api.listComments(d.repo, predecessor, { since: forgejoTime(watermark.updatedAtSecond * 1000) })));
    } else {
      const batches: CommentEvent[][] = [];
      await forEachCommentBatch(d.api, d.repo, predecessor, (b) => batches.push(upserts(b)), d.readWindowSize ? { windowSize: d.readWindowSize } : {});
      for (const b of batches) await d.store.applyDelivery(key, null, b);
    }
    const p = createProjection(d.policy);
    for (const c of await d.store.comments(key)) p.restore(c);
    const n = await carryNewest({ api: d.api, store: d.store, repo: d.repo, issue: predecessor, logger: d.logger, selfLogin: d.selfLogin }, fence, p.snapshot(), d.issue, d.entries);
    if (n) d.logger.info({ issue: d.issue, predecessor, carried: n }, "carried saves posted on the closed predecessor");
    return n;
  } finally {
    await d.store.releaseLease(lease).catch(() => {}); // it runs out by itself
  }
}

/** A successor created by an earlier attempt that died before recording it (found by the marker in its body). */
async function findSuccessor(d: RolloverDeps): Promise<number | null> {
  const issues = await d.api.listAllIssues(d.repo, { state: "open", q: d.title, type: "issues" });
  return issues.find((i) => i.title === d.title && continuedFrom(i.body) === d.issue)?.number ?? null;
}
