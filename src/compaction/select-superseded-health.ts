import { createProjection } from "../projection/index.ts";
import type { CommentRecord, TrustPolicy } from "../projection/index.ts";
import { parseComment } from "../protocol/index.ts";

/** Records per agent+session the selector's projection keeps (as the bot's own): memory per entry, not per comment. */
const HOT_RECORDS = 16;

/**
 * Selects superseded health page by page (`add`, then `selected`), so a caller
 * reading a large issue from its store never holds every body at once: only
 * the candidates (old trusted health) are kept, beside a bounded projection.
 */
export function supersededHealthSelector(policy: TrustPolicy, nowMs: number, retentionMs: number) {
  const p = createProjection(policy, { hotRecords: HOT_RECORDS });
  const trusted = new Set([...policy.trustedAuthors].map((a) => a.toLowerCase()));
  const candidates: CommentRecord[] = [];
  return {
    add(comments: readonly CommentRecord[]): void {
      p.applyAll(comments.map((comment) => ({ type: "upsert", comment })));
      for (const c of comments) if (trusted.has(c.author.toLowerCase()) && nowMs - Date.parse(c.createdAt) > retentionMs && parseComment(c.body).kind === "health") candidates.push(c);
    },
    selected(): CommentRecord[] {
      const keep = new Set<number>();
      for (const e of p.snapshot().entries) if (e.health) keep.add(e.health.commentId);
      return candidates.filter((c) => !keep.has(c.id)).sort((a, b) => a.id - b.id);
    },
  };
}

/**
 * The health comments compaction may delete: `[HEALTH]` by a trusted author,
 * not the newest trusted health of its agent+session (which the dashboard and
 * liveness read, and rollover carries), and created more than `retentionMs`
 * before `nowMs`. Checkpoints, other people's comments and unreadable comments
 * are never selected. Pure; ascending by id.
 */
export function selectSupersededHealth(comments: readonly CommentRecord[], policy: TrustPolicy, nowMs: number, retentionMs: number): CommentRecord[] {
  const s = supersededHealthSelector(policy, nowMs, retentionMs);
  s.add(comments);
  return s.selected();
}
