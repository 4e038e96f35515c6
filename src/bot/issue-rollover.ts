import type { Logger } from "pino";
import type { ForgejoApi, RepoRef } from "../forgejo/index.ts";
import type { ProjectionSnapshot } from "../projection/index.ts";
import type { Fence, ProjectionStore } from "../projection-store/index.ts";
import { issueKey } from "../projection-store/index.ts";
import { carriedBody } from "../rollover/carried-body.ts";
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
 * too, once, and lands after the earlier copies.
 */
export async function carryNewest(d: RolloverDeps, fence: Fence, snap: ProjectionSnapshot, successor: number): Promise<number> {
  const key = issueKey(d.repo, d.issue);
  const meta = await d.store.issueMeta(key);
  const carried = [...(meta.carried ?? [])];
  const done = new Set(carried.map((c) => c.from));
  const wanted: number[] = [];
  for (const e of snap.entries) {
    if (e.latest) wanted.push(e.latest.commentId);
    if (e.health) wanted.push(e.health.commentId);
  }
  const todo = wanted.filter((id) => !done.has(id)).sort((a, b) => a - b);
  if (!todo.length) return 0;
  const bodies = new Map((await d.store.comments(key)).filter((c) => c.body !== null).map((c) => [c.id, c.body as string]));
  for (const from of todo) {
    const body = bodies.get(from);
    if (body === undefined) continue;
    await d.store.checkFence(fence); // not the writer any more: stop before posting
    const copy = await d.api.createComment(d.repo, successor, carriedBody(body, { issue: d.issue, commentId: from }));
    carried.push({ from, to: copy.id });
    await d.store.updateIssueMeta(fence, key, { carried });
  }
  d.logger.info({ issue: d.issue, successor, carried: todo.length }, "carried the newest checkpoints and health signals");
  return todo.length;
}

/** A successor created by an earlier attempt that died before recording it (found by the marker in its body). */
async function findSuccessor(d: RolloverDeps): Promise<number | null> {
  const { issues } = await d.api.listIssues(d.repo, { state: "open", q: d.title, type: "issues", limit: 50 });
  return issues.find((i) => i.title === d.title && continuedFrom(i.body) === d.issue)?.number ?? null;
}
