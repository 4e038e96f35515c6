import { formatSnapshotSummary, snapshotOf } from "./snapshot-summary.ts";
import { DEFAULT_LIVENESS_OPTIONS } from "../projection/index.ts";
import type { LivenessOptions, LivenessState } from "../projection/index.ts";
import type { AttentionReason, DashboardModel, DashboardRow } from "./dashboard-model.ts";
import { formatAge } from "./format-age.ts";
import { ignoredAuthorsText } from "./ignored-authors.ts";
import { formatDuration } from "../util/format-duration.ts";
import { CONTROLS } from "../protocol/index.ts";

export interface StatusTextOptions {
  /** ANSI colours (a TTY without NO_COLOR). */
  color?: boolean;
  /** A title line, e.g. "agent/work#1". */
  title?: string;
  liveness?: Partial<LivenessOptions>;
}

const CODES = { red: 31, yellow: 33, green: 32, cyan: 36, dim: 2, bold: 1 } as const;
type Style = keyof typeof CODES;

/**
 * A value from a comment, safe on a terminal: C0/C1 controls (ESC starts
 * escape sequences that could rewrite the screen or the window title), DEL
 * and line/paragraph separators become "?"; at most `max` characters.
 */
function clean(s: string, max = 60): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, "?");
  const chars = [...t];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : t;
}

const LIVE: Record<LivenessState, [string, Style]> = { active: ["active", "green"], stale: ["STALE", "yellow"], silent: ["SILENT", "red"] };

/**
 * The dashboard's sections for a terminal: needs attention first, then agents
 * by session with a liveness column, recent anomalies, the legend and how to
 * resume. Pure; colours only when asked.
 */
export function renderStatusText(m: DashboardModel, now: Date, options: StatusTextOptions = {}): string {
  const paint = (s: string, style: Style) => (options.color ? `\u001b[${CODES[style]}m${s}\u001b[0m` : s);
  const age = (iso: string | null | undefined) => (iso ? formatAge(now.getTime() - Date.parse(iso)) : "-");
  const phase = (r: DashboardRow) => (r.entry.latest ? `${clean(r.entry.latest.phase, 40)}${r.resumePoint !== null ? ` → ${clean(r.resumePoint, 40)}` : ""}` : "- (fresh start)");
  const live = (r: DashboardRow) => {
    const [text, style] = LIVE[r.liveness.state];
    return r.entry.control?.paused ? paint(`PAUSED (${text})`, "cyan") : paint(text, style);
  };
  const why = (x: AttentionReason) => {
    switch (x.kind) {
      case "silent":
      case "stale":
        return paint(`${x.kind}${x.ageMs === null ? " (never signalled)" : `, last signal ${formatAge(x.ageMs)}`}`, x.kind === "silent" ? "red" : "yellow");
      case "paused":
        return paint(`paused${x.by ? ` by ${clean(x.by, 40)}` : ""} ${age(x.at)}`, "cyan");
      case "health":
        return paint(`health "${clean(x.status, 24)}"`, "yellow");
      case "anomaly":
        return paint(`${x.anomaly.kind} (comment ${x.anomaly.commentId})`, "yellow");
      case "not-used":
        return paint(
          `newer checkpoint (comment ${x.notUsed.commentId}) not used: ${clean(x.notUsed.reason, 120)}${x.notUsed.policy ? ` (${x.notUsed.policy.setting}=${x.notUsed.policy.value})` : ""}${x.more ? ` (and ${x.more} more)` : ""}`,
          "yellow",
        );
    }
  };
  // Width by visible characters: colour codes do not take room.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: our own colour codes take no room
  const visible = (s: string) => [...s.replace(/\u001b\[[0-9;]*m/g, "")].length;
  const table = (rows: string[][], indent = "  ") => {
    const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? ""))));
    return rows
      .map(
        (r) =>
          indent +
          r
            .map((c, i) => (i === r.length - 1 ? c : c + " ".repeat((widths[i] ?? 0) - visible(c))))
            .join("  ")
            .trimEnd(),
      )
      .map((l, ri) => (ri === 0 ? paint(l, "dim") : l));
  };

  const out: string[] = [];
  const attention = m.attention.length + m.omittedAttention;
  const ignoredCount = m.ignored.authors.length + m.ignored.more;
  out.push(paint(`checkpost status${options.title ? ` · ${clean(options.title, 120)}` : ""} · as of ${now.toISOString().slice(0, 16).replace("T", " ")} UTC`, "bold"));
  out.push(
    `${m.total} agent session${m.total === 1 ? "" : "s"} · ${attention} need${attention === 1 ? "s" : ""} attention · ${m.anomalyCount} anomal${m.anomalyCount === 1 ? "y" : "ies"}${m.hidden ? ` · ${m.hidden} hidden` : ""}${ignoredCount ? ` · ${ignoredCount} ignored author${ignoredCount === 1 ? "" : "s"}` : ""}`,
    "",
  );

  out.push(paint("NEEDS ATTENTION", "bold"));
  // The dashboard's sentence, word for word: who was ignored and the setting that admits them.
  const ignored = ignoredAuthorsText(m.ignored, m.trustedAuthors, (s) => clean(s, 40));
  if (ignored) out.push(`  ${paint("ignored authors:", "yellow")} ${ignored}`);
  if (!m.attention.length && !ignored) out.push("  nothing");
  else
    out.push(
      ...table([
        ["AGENT", "SESSION", "WHY", "PHASE → RESUME POINT", "LAST CHECKPOINT"],
        ...m.attention.map((r) => [clean(r.entry.agent), clean(r.entry.session), r.reasons.map(why).join("; "), phase(r), age(r.entry.latest?.createdAt)]),
      ]),
    );
  if (m.omittedAttention) out.push(`  …and ${m.omittedAttention} more`);

  for (const g of m.sessions) {
    out.push("", paint(`SESSION ${clean(g.session)}`, "bold"));
    out.push(
      ...table([
        ["AGENT", "PHASE → RESUME POINT", "LAST CHECKPOINT", "HEALTH", "LIVENESS"],
        ...g.rows.map((r) => [
          clean(r.entry.agent),
          phase(r),
          age(r.entry.latest?.createdAt),
          r.entry.health ? `${clean(r.entry.health.status, 24)} (${age(r.entry.health.createdAt)})` : "-",
          live(r),
        ]),
      ]),
    );
    for (const r of g.rows) {
      const s = snapshotOf(r.entry);
      if (s) out.push(`  ${clean(r.entry.agent)}: latest snapshot ${formatSnapshotSummary(s, now)}`);
    }
  }
  if (m.total === 0) out.push("", "  no checkpoints or health signals yet");
  if (m.omitted) out.push("", `…and ${m.omitted} more agent sessions (use --json for all)`);

  if (m.anomalies.length) {
    out.push("", paint("RECENT ANOMALIES", "bold"));
    for (const a of m.anomalies)
      out.push(`  comment ${a.commentId}  ${paint(a.kind, "yellow")}${a.agent !== null ? `  ${clean(a.agent)}${a.session !== null ? ` / ${clean(a.session)}` : ""}` : ""}: ${clean(a.detail, 160)}`);
  }
  const lo = { ...DEFAULT_LIVENESS_OPTIONS, ...options.liveness };
  const stale = lo.staleAfterMs !== undefined ? formatDuration(lo.staleAfterMs) : `${lo.cadenceFactor} × its usual interval (at least ${formatDuration(lo.minStaleMs)})`;
  out.push("", paint(`Legend: active = a trusted signal within ${stale}; STALE = none for longer; SILENT = none for 3 × that, or never; PAUSED = a person paused it.`, "dim"));
  out.push(paint(`How to resume: checkpost resume --agent A --session S (reports any directive: ${CONTROLS.directives.join(", ")}).`, "dim"));
  return out.join("\n");
}
