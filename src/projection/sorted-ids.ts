/** Insert into an ascending array; O(1) for the usual append. */
export function insertSorted(a: number[], x: number): void {
  if (a.length === 0 || (a[a.length - 1] as number) < x) {
    a.push(x);
    return;
  }
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  if (a[lo] !== x) a.splice(lo, 0, x);
}

/** Remove from an ascending array, if present. */
export function removeSorted(a: number[], x: number): void {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  if (a[lo] === x) a.splice(lo, 1);
}

/** Index of `x` in an ascending array, or -1. */
export function indexOfSorted(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return a[lo] === x ? lo : -1;
}
