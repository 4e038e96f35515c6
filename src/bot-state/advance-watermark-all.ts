import type { Watermark } from "./projection-store.ts";

/**
 * `advanceWatermark` folded over many comment versions, in O(n log n): the
 * one-at-a-time fold copies and sorts the ids of the newest second for every
 * version, which is quadratic when thousands share one second (a bulk import,
 * a burst of comments; issue 9: start-up must stay linear). Returns `w` itself
 * when nothing changes, as `advanceWatermark` does.
 */
export function advanceWatermarkAll(w: Watermark | null, versions: Iterable<{ id: number; updatedAt: string }>): Watermark | null {
  let second = w ? w.updatedAtSecond : Number.NEGATIVE_INFINITY;
  let ids: Set<number> | null = null;
  let changed = false;
  for (const v of versions) {
    const s = Math.floor(Date.parse(v.updatedAt) / 1000);
    if (s > second) {
      second = s;
      ids = new Set([v.id]);
      changed = true;
    } else if (s === second) {
      ids ??= new Set(w?.idsInSecond ?? []);
      if (!ids.has(v.id)) {
        ids.add(v.id);
        changed = true;
      }
    }
  }
  if (!changed || ids === null) return w;
  return { updatedAtSecond: second, idsInSecond: [...ids].sort((a, b) => a - b) };
}
