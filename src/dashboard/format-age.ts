/**
 * A short age for people: "just now", "42m ago", "5h ago", "3d ago". Negative
 * ages (clock skew) read as "just now".
 *
 * @example formatAge(3 * 60_000) // "3m ago"
 */
export function formatAge(ms: number): string {
  const m = Math.floor(Math.max(0, ms) / 60_000);
  if (m < 1) return "just now";
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** Matches every string `formatAge` produces (used to ignore ages when comparing dashboards). */
export const AGE_PATTERN = /\b(?:\d+[mhd] ago|just now)\b/g;
