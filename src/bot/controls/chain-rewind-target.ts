import type { RepoRef } from "../../ports/issue-host.ts";
import type { CommentLog, IssueBookkeeping } from "../../bot-state/index.ts";
import { issueKey } from "../../bot-state/index.ts";
import { createProjection } from "../../projection/index.ts";
import type { TrustPolicy } from "../../projection/index.ts";
import { LATE_CARRY_DEPTH } from "../upkeep/issue-rollover.ts";

/** A trusted checkpoint of an agent+session on a closed predecessor of the head: a rewind target the head does not hold. */
export interface ChainRewindTarget {
  issue: number;
  commentId: number;
  id?: string;
  epoch: number;
  body: string;
}

/**
 * A rewind names a checkpoint the head does not hold when it was saved before a rollover and not carried
 * (a rollover carries only the newest). Look for it in the closed predecessors (nearest first, up to
 * LATE_CARRY_DEPTH back), by comment id or `Id:`, among the checkpoints each one's fold believed for the
 * agent+session (its recent ones: the trust checks are the fold's). Null: not there.
 */
export async function findChainRewindTarget(
  d: { store: CommentLog & IssueBookkeeping; repo: RepoRef; issue: number; policy: TrustPolicy },
  agent: string,
  session: string,
  target: string,
): Promise<ChainRewindTarget | null> {
  let next = d.issue;
  for (let depth = 0; depth < LATE_CARRY_DEPTH; depth++) {
    const predecessor = (await d.store.issueMeta(issueKey(d.repo, next))).predecessor;
    if (predecessor === undefined) return null;
    const key = issueKey(d.repo, predecessor);
    const p = createProjection(d.policy);
    const rows = await d.store.comments(key);
    for (const c of rows) p.restore(c);
    const entry = p.snapshot().entries.find((e) => e.agent === agent && e.session === session);
    const hit = entry?.recent?.find((r) => String(r.commentId) === target || r.id === target);
    if (hit) {
      const row = rows.find((c) => c.id === hit.commentId);
      if (row?.body == null || row.deleted) return null;
      return { issue: predecessor, commentId: hit.commentId, ...(hit.id !== undefined ? { id: hit.id } : {}), epoch: hit.epoch ?? 0, body: row.body };
    }
    next = predecessor;
  }
  return null;
}
