import { createProjection } from "../projection/index.ts";
import type { CommentRecord, TrustPolicy } from "../projection/index.ts";
import { parseComment } from "../protocol/index.ts";

/**
 * The health comments compaction may delete: `[HEALTH]` by a trusted author,
 * not the newest trusted health of its agent+session (which the dashboard and
 * liveness read, and rollover carries), and created more than `retentionMs`
 * before `nowMs`. Checkpoints, other people's comments and unreadable comments
 * are never selected. Pure; ascending by id.
 */
export function selectSupersededHealth(comments: readonly CommentRecord[], policy: TrustPolicy, nowMs: number, retentionMs: number): CommentRecord[] {
  const p = createProjection(policy);
  p.replaceAll(comments);
  const keep = new Set<number>();
  for (const e of p.snapshot().entries) if (e.health) keep.add(e.health.commentId);
  const trusted = new Set([...policy.trustedAuthors].map((a) => a.toLowerCase()));
  return comments
    .filter((c) => !keep.has(c.id) && trusted.has(c.author.toLowerCase()) && nowMs - Date.parse(c.createdAt) > retentionMs && parseComment(c.body).kind === "health")
    .sort((a, b) => a.id - b.id);
}
