/** First index in an ascending array whose value is not below `x` (a.length if none). */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Insert into an ascending array; O(1) for the usual append. */
export function insertSorted(a: number[], x: number): void {
  if (a.length === 0 || (a[a.length - 1] as number) < x) {
    a.push(x);
    return;
  }
  const i = lowerBound(a, x);
  if (a[i] !== x) a.splice(i, 0, x);
}

/** Remove from an ascending array, if present. */
export function removeSorted(a: number[], x: number): void {
  const i = lowerBound(a, x);
  if (a[i] === x) a.splice(i, 1);
}

/** Index of `x` in an ascending array, or -1. */
export function indexOfSorted(a: readonly number[], x: number): number {
  const i = lowerBound(a, x);
  return a[i] === x ? i : -1;
}
