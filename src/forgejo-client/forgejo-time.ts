/**
 * A time as Forgejo's `since`/`before` filters want it: RFC 3339 in whole
 * seconds (Forgejo compares unix seconds), floored so the boundary second is
 * included. Callers dedupe what the boundary second returns twice.
 */
export function forgejoTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
