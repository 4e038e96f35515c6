/**
 * Optimal string alignment distance (Levenshtein plus one swap of neighbours), capped: counting stops once
 * every path exceeds `max`, so a long list of long names costs little.
 */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (prev2[j - 2] ?? 0) + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

/**
 * The known names one typo away from `name` (two for names of 8 characters or more), nearest first:
 * what a "did you mean" offers. `known-workr` finds `known-worker`; the name itself is never offered.
 *
 * @example closeNames("known-workr", ["known-worker", "reviewer"]) // ["known-worker"]
 */
export function closeNames(name: string, known: readonly string[]): string[] {
  const max = name.length >= 8 ? 2 : 1;
  return known
    .filter((k) => k !== name)
    .map((k) => ({ k, d: distance(name, k, max) }))
    .filter((x) => x.d <= max)
    .sort((x, y) => x.d - y.d || (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((x) => x.k);
}
