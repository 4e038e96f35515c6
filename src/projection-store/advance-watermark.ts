import type { Watermark } from "./projection-store.ts";

/** The watermark after seeing a comment version with this `updatedAt` (never moves back). */
export function advanceWatermark(w: Watermark | null, commentId: number, updatedAt: string): Watermark {
  return advanceWatermarkAll(w, [{ id: commentId, updatedAt }]);
}

/**
 * The watermark after a batch of comment versions, in one pass: a whole issue
 * can share one `updated_at` second (an import), so ids are gathered in a set
 * and sorted once, never per comment.
 */
export function advanceWatermarkAll(w: Watermark | null, comments: Iterable<{ id: number; updatedAt: string }>): Watermark {
  let second = w?.updatedAtSecond ?? Number.NEGATIVE_INFINITY;
  let ids: Set<number> | null = null;
  for (const c of comments) {
    const s = Math.floor(Date.parse(c.updatedAt) / 1000);
    if (s > second) {
      second = s;
      ids = new Set([c.id]);
    } else if (s === second) {
      ids ??= new Set(w?.updatedAtSecond === second ? w.idsInSecond : []);
      ids.add(c.id);
    }
  }
  if (ids === null) {
    if (w) return w;
    throw new Error("advanceWatermarkAll: no comment and no watermark");
  }
  return { updatedAtSecond: second, idsInSecond: [...ids].sort((a, b) => a - b) };
}
