/**
 * The seed's timestamp: Python `datetime.utcnow().isoformat() + "Z"`, i.e.
 * microseconds when non-zero ("…T10:00:00.500000Z") and none when zero
 * ("…T10:00:00Z"). Clocks differ between machines and strings sort badly, so
 * this is shown to people and never used to order checkpoints.
 */
export function pythonUtcIsoformat(date: Date): string {
  const iso = date.toISOString(); // 2026-11-29T10:56:36.123Z
  const ms = date.getUTCMilliseconds();
  const base = iso.slice(0, 19);
  return ms === 0 ? `${base}Z` : `${base}.${String(ms).padStart(3, "0")}000Z`;
}

/** Parse a protocol timestamp (with or without "Z", any fraction) to epoch ms, or null. */
export function parseProtocolTime(value: string | null): number | null {
  if (!value) return null;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/.exec(value.trim());
  if (!m) return null;
  const frac = m[3] ? `.${m[3].slice(0, 3).padEnd(3, "0")}` : "";
  const ms = Date.parse(`${m[1]}T${m[2]}${frac}${m[4] ?? "Z"}`);
  return Number.isNaN(ms) ? null : ms;
}
