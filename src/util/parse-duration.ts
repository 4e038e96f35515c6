const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "24h", "90m", "3600s", "500ms", "2d", a bare number of milliseconds, or "off"/"0" (→ 0); null when unreadable. */
export function parseDuration(v: string): number | null {
  const t = v.trim().toLowerCase();
  if (t === "off" || t === "false" || t === "no") return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(t);
  if (!m) return null;
  return Math.round(Number(m[1]) * (UNITS[m[2] ?? "ms"] as number));
}
