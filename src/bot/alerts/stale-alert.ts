import type { AgentEntry, Liveness } from "../../projection/index.ts";
import { entryKey } from "../../projection/index.ts";
import { escapeMarkdown } from "../../dashboard/index.ts";
import { formatDuration as formatAge } from "../../util/format-duration.ts";

const MARK = "<!-- checkpost:alert ";

/**
 * The one comment posted when an agent turns Stale or Silent. It carries a
 * hidden key (agent, session, state, last signal) so a restarted bot knows it
 * already alerted and never repeats itself. It does not open with a protocol
 * marker, so no reader takes it for a checkpoint.
 */
export function alertBody(entry: AgentEntry, to: "stale" | "silent", l: Liveness, now: Date): string {
  // Names come from comments: `<` `>` `&` cannot close the HTML comment, `@` and `#` cannot mention
  // anyone or reference an issue (Forgejo finds those in raw text); JSON.parse reads the escapes back.
  const key = JSON.stringify([entry.agent, entry.session, to, entry.lastSignalAt ?? ""]).replace(/[<>&@#]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const age = l.ageMs === null ? "never signalled" : `no signal for ${formatAge(l.ageMs)}`;
  return (
    `${MARK}${key} -->\n` +
    `⚠️ **${escapeMarkdown(entry.agent)}** (session ${escapeMarkdown(entry.session)}) is **${to === "stale" ? "Stale" : "Silent"}**: ${age} ` +
    `(threshold ${formatAge(to === "stale" ? l.thresholdMs : l.silentMs)}). Checked at ${now.toISOString().slice(0, 19)}Z.`
  );
}

/** The alert key of one of our alert comments, or null. */
export function parseAlert(body: string): string | null {
  if (!body.startsWith(MARK)) return null;
  const end = body.indexOf(" -->", MARK.length);
  try {
    const v: unknown = JSON.parse(body.slice(MARK.length, end));
    if (Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === "string")) return `${entryKey(v[0] as string, v[1] as string)}\u0000${v[2]}\u0000${v[3]}`;
  } catch {
    // someone else's text after our marker: not an alert of ours
  }
  return null;
}
