import type { Watermark } from "./projection-store.ts";

/** The watermark after seeing a comment version with this `updatedAt` (never moves back). */
export function advanceWatermark(w: Watermark | null, commentId: number, updatedAt: string): Watermark {
  const second = Math.floor(Date.parse(updatedAt) / 1000);
  if (!w || second > w.updatedAtSecond) return { updatedAtSecond: second, idsInSecond: [commentId] };
  if (second < w.updatedAtSecond || w.idsInSecond.includes(commentId)) return w;
  return { updatedAtSecond: second, idsInSecond: [...w.idsInSecond, commentId].sort((a, b) => a - b) };
}
