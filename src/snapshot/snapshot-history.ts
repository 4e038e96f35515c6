import { followablePredecessor } from "../chain/chain-rules.ts";
import type { HostComment, HostIssue, IssueHost } from "../ports/issue-host.ts";
import { parseComment } from "../protocol/index.ts";
import type { Snapshot } from "../protocol/index.ts";
import type { SessionStore } from "../session-client/index.ts";
import { readAllComments } from "../session-client/read-all-comments.ts";
import { partsCommentOf } from "./core/parts-comment.ts";

export interface SnapshotComment {
  commentId: number;
  issue: number;
  createdAt: string;
  htmlUrl: string;
  snapshot: Snapshot;
  /** Written below an epoch fence raised before it (a take-over, a newer writer's snapshot): never restored. */
  zombie: boolean;
}

export interface SnapshotHistory {
  /** The open head of the session chain, where a save posts. */
  head: HostIssue;
  /** The agent+session's trusted, unedited [SNAPSHOT] comments found, newest first. */
  snapshots: SnapshotComment[];
  /** The agent+session's trusted parts comments found (any age), newest first. */
  parts: { commentId: number; issue: number }[];
  /** The highest epoch any trusted checkpoint, control or snapshot of the agent+session holds: the fence. */
  fence: number;
  /** Issues read, head first (the walk stops once `want` live snapshots are found). */
  issuesRead: number[];
}

/**
 * Read the agent+session's snapshots from the open head of the session chain backwards (rollover leaves
 * older ones on closed issues, which stay readable), until `want` live snapshots are found or the chain
 * ends. Only comments of trusted authors count; an edited [SNAPSHOT] comment is ignored.
 */
export async function readSnapshotHistory(store: SessionStore, api: IssueHost, agent: string, session: string, want: number): Promise<SnapshotHistory> {
  const [head, policy] = await Promise.all([store.head(), store.policy()]);
  const trusted = policy.trustedAuthors;
  const comments: { issue: number; c: HostComment }[] = [];
  const issuesRead: number[] = [];
  let issue: HostIssue | null = head;
  const seen = new Set<number>();
  while (issue && !seen.has(issue.number)) {
    seen.add(issue.number);
    issuesRead.push(issue.number);
    const n: number = issue.number;
    for (const c of await readAllComments(api, store.repo, n, { issueMeta: issue })) comments.push({ issue: n, c });
    const live = comments.filter(({ c }) => isSnapshotOf(c, agent, session, trusted)).length;
    if (live >= want) break;
    const prev = followablePredecessor(issue, { title: head.title, trusted });
    issue = prev === null ? null : await api.readIssue(store.repo, prev);
  }
  comments.sort((a, b) => a.c.id - b.c.id);
  let fence = 0;
  const snapshots: SnapshotComment[] = [];
  const parts: { commentId: number; issue: number }[] = [];
  for (const { issue: n, c } of comments) {
    if (!trusted.has(c.author.toLowerCase())) continue;
    const owner = partsCommentOf(c.body);
    if (owner) {
      if (owner.agent === agent && owner.session === session) parts.push({ commentId: c.id, issue: n });
      continue;
    }
    const p = parseComment(c.body);
    if (p.kind === "checkpoint" && p.checkpoint.agent === agent && p.checkpoint.session === session) fence = Math.max(fence, p.checkpoint.epoch ?? 0);
    else if (p.kind === "control" && p.control.agent === agent && p.control.session === session) fence = Math.max(fence, p.control.epoch ?? 0);
    else if (p.kind === "snapshot" && p.snapshot.agent === agent && p.snapshot.session === session && c.updatedAt === c.createdAt) {
      snapshots.push({ commentId: c.id, issue: n, createdAt: c.createdAt, htmlUrl: c.htmlUrl, snapshot: p.snapshot, zombie: p.snapshot.epoch < fence });
      fence = Math.max(fence, p.snapshot.epoch);
    }
  }
  return { head, snapshots: snapshots.reverse(), parts: parts.reverse(), fence, issuesRead };
}

function isSnapshotOf(c: HostComment, agent: string, session: string, trusted: ReadonlySet<string>): boolean {
  if (!c.body.startsWith("[SNAPSHOT]") || !trusted.has(c.author.toLowerCase())) return false;
  const p = parseComment(c.body);
  return p.kind === "snapshot" && p.snapshot.agent === agent && p.snapshot.session === session;
}
