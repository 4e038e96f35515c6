/** Forgejo stores unix seconds and renders RFC 3339 with whole seconds. */

/** Unix seconds → "2025-11-21T09:14:27Z" (UTC). */
export function rfc3339(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 19) + "Z";
}

/** Zero time.Time as Go marshals it. */
export const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parse like Go's time.Parse(time.RFC3339, s) and return unix seconds (fraction truncated,
 * as Go's Time.Unix() does), or null when the string is not RFC 3339.
 */
export function parseRfc3339ToUnix(value: string): number | null {
  if (!RFC3339_RE.test(value)) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  return Math.floor(ms / 1000);
}
