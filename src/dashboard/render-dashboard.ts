import { renderRetentionLine } from "./render-retention-line.ts";
import type { RetentionInfo } from "./render-retention-line.ts";
import type { LegacyWriters, LivenessOptions, LivenessState, NotUsedCheckpoint, ProjectionSnapshot } from "../projection/index.ts";
import { DEFAULT_LIVENESS_OPTIONS } from "../projection/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { CONTROLS } from "../protocol/index.ts";
import { formatControlCheckbox } from "./control-checkbox.ts";
import { buildDashboardModel } from "./dashboard-model.ts";
import { ignoredAuthorsText } from "./ignored-authors.ts";
import { unconfirmedChangeText } from "./unconfirmed-change.ts";
import type { UnconfirmedChange } from "./unconfirmed-change.ts";
import type { AttentionReason, DashboardRow } from "./dashboard-model.ts";
import { escapeMarkdown, safeUrl } from "./escape-markdown.ts";
import { formatAge } from "./format-age.ts";
import { DASHBOARD_END, DASHBOARD_START, UPDATED_LINE_PREFIX } from "./markers.ts";
import { formatSnapshotSummary, snapshotOf } from "./snapshot-summary.ts";
import { renderGantt } from "./render-gantt.ts";
import { buildResumeIndex, formatResumeIndex } from "./resume-index.ts";
import { formatResumeIndexRef, resumeIndexContent } from "./extract-resume-index.ts";
import type { ResumeIndexRef } from "./extract-resume-index.ts";
import type { ResumeIndexSigning } from "./resume-index.ts";
import { formatDuration } from "../util/format-duration.ts";

export interface RenderDashboardOptions {
  /** Phase map per agent name, for the "→ resume point" column. Default: the built-in maps. */
  phaseMaps?: Readonly<Record<string, Readonly<PhaseMap>>>;
  /** Liveness thresholds (see `liveness`). */
  liveness?: Partial<LivenessOptions>;
  /** How many anomalies to list, newest first (trusted writers' first). Default 10. */
  maxAnomalies?: number;
  /** Most agent rows (needs-attention first, then "and N more"). Default 50. */
  maxRows?: number;
  /** Heading text. Default "checkpost dashboard". */
  title?: string;
  /**
   * Where checkpost's docs are (CHECKPOST_DOCS_URL): the header links to `<docsUrl>/dashboard.md`, the
   * ignored-authors line to `<docsUrl>/security.md`. Unset: no link, the file is named instead (the
   * package is not on a registry, so no public page is known to exist).
   */
  docsUrl?: string;
  /** CHECKPOST_TRUSTED_AUTHORS as the bot has it: the ignored-authors line names the setting that admits an author. */
  trustedAuthors?: readonly string[];
  /** Box changes made while the bot was down and not run (the issue's poster may not command): shown under "Needs attention" with the command that confirms each. */
  unconfirmed?: readonly UnconfirmedChange[];
  /** The bot's base URL, for the "How to resume" line's API path. */
  apiUrl?: string;
  /** The retention line (issue size, rollover point, chain, compaction); omitted when absent. */
  retention?: RetentionInfo;
  /** Render control checkboxes (the control registry's boxes: pause, release, hide, rewind). Default true. */
  controls?: boolean;
  /** Sign the resume index (CHECKPOST_SIGNING_KEY and the issue): readers with the key ignore an index without it. */
  resumeIndexSigning?: ResumeIndexSigning;
  /** The projection's CHECKPOST_LEGACY_WRITERS, recorded in the resume index (a reader with another policy reads everything). */
  legacyWriters?: LegacyWriters;
  /**
   * The index lives in a comment of the issue (see DashboardWriter): write this pointer to it
   * instead of the index itself, so the body does not grow with the number of agents (null: no index at all).
   */
  resumeIndexRef?: ResumeIndexRef | null;
}

/** Rewind boxes per agent (the checkpoints before the current one). */
export const REWIND_TARGETS = 2;

/** The page a docs link names, under CHECKPOST_DOCS_URL (a base ending in a folder); null when unset or unsafe. */
export function docsPage(docsUrl: string | undefined, page: string): string | null {
  if (docsUrl === undefined || docsUrl === "") return null;
  return safeUrl(`${docsUrl.replace(/\/+$/, "")}/${page}`);
}

const LIVENESS_LABEL: Record<LivenessState, string> = { active: "🟢 Active", stale: "🟡 Stale", silent: "🔴 Silent" };

/** "2026-11-29 10:00 UTC": to the minute, no locale. */
function utc(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function link(text: string, url: string | undefined): string {
  const u = safeUrl(url);
  return u ? `[${text}](${u})` : text;
}

function ageSince(iso: string, now: Date): string {
  return formatAge(now.getTime() - Date.parse(iso));
}

function phaseCell(r: DashboardRow): string {
  const l = r.entry.latest;
  if (!l) return "— (fresh start)";
  return r.resumePoint !== null ? `${escapeMarkdown(l.phase)} → ${escapeMarkdown(r.resumePoint)}` : escapeMarkdown(l.phase);
}

function lastCell(r: DashboardRow, now: Date): string {
  const l = r.entry.latest;
  if (!l) return "—";
  const extra = [l.seq !== undefined ? `seq ${l.seq}` : "", l.epoch ? `epoch ${l.epoch}` : ""].filter(Boolean);
  return [link(ageSince(l.createdAt, now), l.htmlUrl), ...extra].join(" · ");
}

function healthCell(r: DashboardRow, now: Date): string {
  const h = r.entry.health;
  if (!h) return "—";
  const flagged = r.reasons.some((x) => x.kind === "health");
  return link(`${flagged ? "⚠️ " : ""}${escapeMarkdown(h.status, 24)} · ${ageSince(h.createdAt, now)}`, h.htmlUrl);
}

function livenessCell(r: DashboardRow): string {
  return r.entry.control?.paused ? `⏸️ Paused (${LIVENESS_LABEL[r.liveness.state]})` : LIVENESS_LABEL[r.liveness.state];
}

function reasonText(x: AttentionReason, now: Date): string {
  switch (x.kind) {
    case "silent":
    case "stale":
      return `${x.kind === "silent" ? "🔴 silent" : "🟡 stale"}${x.ageMs === null ? " (never signalled)" : `, last signal ${formatAge(x.ageMs)}`}`;
    case "paused":
      return `⏸️ paused${x.by ? ` by ${escapeMarkdown(x.by, 40)}` : ""} ${ageSince(x.at, now)}`;
    case "health":
      return `⚠️ health "${escapeMarkdown(x.status, 24)}"`;
    case "anomaly":
      return `⚠️ ${link(`${x.anomaly.kind} (comment ${x.anomaly.commentId})`, x.anomaly.htmlUrl)}`;
    case "not-used":
      return `⚠️ newer ${link(`checkpoint (comment ${x.notUsed.commentId})`, x.notUsed.htmlUrl)} not used: ${notUsedWhy(x.notUsed)}${x.more ? ` (and ${x.more} more)` : ""}`;
  }
}

/** The reason, and the setting that decided it when there is one. Policy texts are ours; the reason may quote nothing from a comment. */
function notUsedWhy(n: NotUsedCheckpoint): string {
  const policy = n.policy ? ` (\`${n.policy.setting}=${n.policy.value}\`; \`${n.policy.setting}=accept\` would resume from it)` : "";
  return `${escapeMarkdown(n.reason, 120)}${policy}`;
}

function who(r: DashboardRow): string {
  return `${escapeMarkdown(r.entry.agent)} / ${escapeMarkdown(r.entry.session)}`;
}

/** The per-agent `<details>`: controls and the last few checkpoints (time-travel targets). */
function details(r: DashboardRow, now: Date, controls: boolean): string[] {
  const e = r.entry;
  const base = { agent: e.agent, session: e.session };
  const out = ["<details>", `<summary>${who(r)}: controls, history</summary>`, ""];
  if (controls) {
    // A box whose effect is a state is ticked while it holds (Pause); the others are ticked to act.
    for (const a of CONTROLS.rowBoxes) out.push(formatControlCheckbox({ ...base, action: a.action, checked: a.effect === "pause" && e.control?.paused != null }, a.box.label));
  }
  // The current checkpoint and the REWIND_TARGETS before it: the body rides along every webhook delivery,
  // so older rewind targets are left to `/checkpost rewind` and `checkpost status` (issue 22).
  const recent = (e.recent ?? []).slice(0, 1 + REWIND_TARGETS);
  if (recent.length) {
    out.push("", "Checkpoints, newest first:", "");
    recent.forEach((cp, i) => {
      const text = `${escapeMarkdown(cp.phase)} · ${ageSince(cp.createdAt, now)}`;
      const extra = `${cp.seq !== undefined ? ` · seq ${cp.seq}` : ""}${cp.epoch ? ` · epoch ${cp.epoch}` : ""}`;
      // A rewind box names its target by comment id in its key: no link (a URL per box was a third of the dashboard).
      if (controls && i > 0 && CONTROLS.checkpointBoxes.length)
        for (const a of CONTROLS.checkpointBoxes) out.push(formatControlCheckbox({ ...base, action: a.action, target: cp.commentId, checked: false }, `${a.box.label} ${text}${extra}`));
      else out.push(`- ${link(text, cp.htmlUrl)}${extra}${i === 0 ? " (current)" : ""}`);
    });
  }
  const notUsed = e.notUsed ?? [];
  if (notUsed.length) {
    out.push("", "Newer checkpoints not used, newest first:", "");
    for (const n of notUsed) out.push(`- ${link(`${escapeMarkdown(n.phase)} · ${ageSince(n.createdAt, now)}`, n.htmlUrl)} (comment ${n.commentId}): ${notUsedWhy(n)}`);
  }
  out.push("", "</details>");
  return out;
}

/**
 * The whole dashboard section, markers included. Sections, in order: a short
 * header with a docs link; "Needs attention" (silent/stale agents, recent
 * trusted anomalies, unhealthy and paused agents); agents grouped by session
 * with one `<details>` each (controls, recent checkpoints); a legend; how to
 * resume; a Mermaid Gantt of the last 24 h; recent anomalies; the hidden
 * resume index. At most `maxRows` agent rows, then "and N more", so the size
 * is bounded (docs/dashboard.md). Deterministic for (snapshot, now, opts);
 * every value from comments is escaped; ages are ignored by `dashboardChanged`
 * and the "Updated" line is written once, so time alone does not cause writes.
 *
 * @example spliceDashboard(issue.body, renderDashboard(projection.snapshot(), new Date()))
 */
export function renderDashboard(snapshot: ProjectionSnapshot, now: Date, opts: RenderDashboardOptions = {}): string {
  const m = buildDashboardModel(snapshot, now, opts);
  const controls = opts.controls ?? true;
  const docs = docsPage(opts.docsUrl, "dashboard.md");
  const lines = [
    DASHBOARD_START,
    `### ${escapeMarkdown(opts.title ?? "checkpost dashboard")}`,
    "",
    `This issue is where agents save checkpoints and resume after a crash. The bot keeps this section up to date (write outside it); ${docs ? `[what each part means](${docs})` : "docs/dashboard.md in the checkpost package says what each part means"}. Tick a box below or comment \`/checkpost ${CONTROLS.actions.map((a) => a.verbs[0]).join("|")} <agent> <session>\` to act (repository writers only).`,
    "",
    `${UPDATED_LINE_PREFIX}${utc(now)}; ages are as of then_`,
    "",
  ];
  const n = m.anomalyCount;
  const summary = [
    `${m.total} agent session${m.total === 1 ? "" : "s"}`,
    `${m.attention.length + m.omittedAttention} need${m.attention.length + m.omittedAttention === 1 ? "s" : ""} attention`,
    `${n} anomal${n === 1 ? "y" : "ies"}`,
  ];
  if (m.hidden) summary.push(`${m.hidden} hidden`);
  if (m.untrustedOnly) summary.push(`${m.untrustedOnly} with untrusted comments only (not shown)`);
  const ignoredCount = m.ignored.authors.length + m.ignored.more;
  if (ignoredCount) summary.push(`${ignoredCount} ignored author${ignoredCount === 1 ? "" : "s"}`);
  lines.push(summary.join(" · "), "");

  lines.push("#### Needs attention", "");
  // An agent outside CHECKPOST_TRUSTED_AUTHORS has no row at all: say who was ignored and the setting that admits it.
  const ignored = ignoredAuthorsText(
    m.ignored,
    m.trustedAuthors,
    (s) => escapeMarkdown(s),
    (s) => `\`${s.replace(/`/g, "")}\``,
  );
  if (ignored) lines.push(`⚠️ **Ignored authors:** ${ignored}`, "");
  // A change nobody may be allowed to have made: shown until a command for the same agent+session is accepted.
  for (const c of m.unconfirmed) lines.push(unconfirmedChangeText(c), "");
  if (m.attention.length === 0 && !ignored && m.unconfirmed.length === 0) lines.push("_Nothing: every agent is signalling and no trusted writer caused an anomaly recently._");
  else if (m.attention.length > 0) {
    lines.push("| Agent / session | Why | Phase → resume point | Last checkpoint |", "| --- | --- | --- | --- |");
    for (const r of m.attention) lines.push(`| ${who(r)} | ${r.reasons.map((x) => reasonText(x, now)).join("; ")} | ${phaseCell(r)} | ${lastCell(r, now)} |`);
    if (m.omittedAttention) lines.push("", `_…and ${m.omittedAttention} more needing attention (\`checkpost status\` lists all)._`);
  }

  lines.push("", "#### Agents by session", "");
  if (m.total === 0) lines.push("_No checkpoints or health signals yet._");
  for (const g of m.sessions) {
    lines.push(`##### Session ${escapeMarkdown(g.session)}`, "", "| Agent | Phase → resume point | Last checkpoint | Health | Liveness |", "| --- | --- | --- | --- | --- |");
    for (const r of g.rows) lines.push(`| ${escapeMarkdown(r.entry.agent)} | ${phaseCell(r)} | ${lastCell(r, now)} | ${healthCell(r, now)} | ${livenessCell(r)} |`);
    lines.push("");
    // Each agent's latest snapshot of its native state (docs/snapshots.md), when it has one.
    const snaps = g.rows.flatMap((r) => {
      const s = snapshotOf(r.entry);
      return s ? [`${escapeMarkdown(r.entry.agent)}: ${formatSnapshotSummary(s, now)}`] : [];
    });
    if (snaps.length) lines.push(`Latest snapshots: ${snaps.join(" · ")}`, "");
    for (const r of g.rows) lines.push(...details(r, now, controls), "");
  }
  if (m.omitted) lines.push(`_…and ${m.omitted} more agent session${m.omitted === 1 ? "" : "s"} not shown (\`checkpost status\` or \`/api/agents\` list all)._`, "");

  const lo = { ...DEFAULT_LIVENESS_OPTIONS, ...opts.liveness };
  const stale = lo.staleAfterMs !== undefined ? formatDuration(lo.staleAfterMs) : `${lo.cadenceFactor} × its usual interval between signals (at least ${formatDuration(lo.minStaleMs)})`;
  const silent = lo.silentAfterMs !== undefined ? formatDuration(lo.silentAfterMs) : "3 × that";
  lines.push(
    `**Legend:** 🟢 Active: a trusted checkpoint or health signal within ${stale} · 🟡 Stale: none for longer · 🔴 Silent: none for ${silent}, or never · ⏸️ Paused: a person paused it · ⚠️ health other than Active, or a recent anomaly. Ages are rounded and refreshed only when something else changes.`,
    "",
  );
  if (opts.retention) lines.push(renderRetentionLine(opts.retention), "");
  const api = opts.apiUrl ? `\`GET ${opts.apiUrl.replace(/`/g, "")}/api/resume?agent=A&session=S\`` : "`GET /api/resume?agent=A&session=S` on the bot";
  lines.push(`**How to resume:** \`checkpost resume --agent A --session S\` (or ${api}); it also reports any directive (${CONTROLS.directives.join(", ")}).`, "");

  const shownRows = m.sessions.flatMap((g) => g.rows);
  const gantt = renderGantt(shownRows, now);
  if (gantt) lines.push("<details>", "<summary>Timeline: phases over the last 24 h</summary>", "", gantt, "", "</details>", "");

  lines.push("#### Recent anomalies", "");
  if (m.anomalies.length === 0) lines.push("_None._");
  else
    for (const a of m.anomalies) {
      const whom = a.agent === null ? "" : ` · ${escapeMarkdown(a.agent)}${a.session === null ? "" : ` / ${escapeMarkdown(a.session)}`}`;
      lines.push(`- ${link(`comment ${a.commentId}`, a.htmlUrl)} **${a.kind}**${whom}: ${escapeMarkdown(a.detail, 160)}`);
    }
  const index = opts.resumeIndexRef === undefined ? renderResumeIndex(snapshot, opts).text : opts.resumeIndexRef === null ? null : formatResumeIndexRef(opts.resumeIndexRef);
  lines.push("", ...(index === null ? [] : [index]), DASHBOARD_END);
  return lines.join("\n");
}

/** The resume index of a snapshot as its one HTML-comment line (signed when asked), the time a reader lists the tail from, and what it says bar the watermark. */
export function renderResumeIndex(
  snapshot: ProjectionSnapshot,
  opts: Pick<RenderDashboardOptions, "legacyWriters" | "resumeIndexSigning"> = {},
): { text: string; since: string | null; content: string } {
  const index = buildResumeIndex(snapshot, opts.legacyWriters ? { legacyWriters: opts.legacyWriters } : {});
  return { text: formatResumeIndex(index, opts.resumeIndexSigning), since: index.watermarkUpdatedAt ?? null, content: resumeIndexContent(index) };
}
