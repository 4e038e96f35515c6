import type { DashboardRow } from "./dashboard-model.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Mermaid takes `:` `;` `#` and line breaks as syntax: keep names to a safe alphabet. */
function mermaidText(s: string, max = 40): string {
  const t = [...s.replace(/[^A-Za-z0-9 ._\-/()]/g, "_")].slice(0, max).join("");
  return t.trim() || "_";
}

/** "2026-11-29T10:00" (UTC, minutes). */
function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/**
 * A Mermaid Gantt chart of each shown agent's phases over the last 24 h, from
 * its recent trusted checkpoints: one section per agent+session, one bar per
 * phase from its checkpoint to the next (the newest runs to `now` rounded down
 * to the hour, so the chart changes at most hourly by itself). Null when no
 * checkpoint falls in the window.
 */
export function renderGantt(rows: readonly DashboardRow[], now: Date, maxAgents = 20): string | null {
  const end = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const start = end - DAY_MS;
  const sections: string[] = [];
  for (const r of rows) {
    if (sections.length >= maxAgents) break;
    const recent = [...(r.entry.recent ?? [])].reverse(); // oldest first
    const bars: string[] = [];
    recent.forEach((cp, i) => {
      const from = Date.parse(cp.createdAt);
      const next = recent[i + 1];
      const to = next ? Date.parse(next.createdAt) : Math.max(end, from + 60_000);
      if (to < start) return;
      const a = Math.max(from, start);
      bars.push(`    ${mermaidText(cp.phase)} :${minute(a)}, ${minute(Math.max(to, a + 60_000))}`);
    });
    if (bars.length) sections.push(`    section ${mermaidText(`${r.entry.agent} / ${r.entry.session}`, 60)}`, ...bars);
  }
  if (!sections.length) return null;
  return ["```mermaid", "gantt", "    dateFormat YYYY-MM-DDTHH:mm", "    axisFormat %H:%M", ...sections, "```"].join("\n");
}
