import { BUILTIN_PHASE_MAPS, resumePointFor } from "../protocol/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { liveness } from "../projection/index.ts";
import type { AgentEntry, Anomaly, LivenessOptions, LivenessState, ProjectionSnapshot } from "../projection/index.ts";
import { escapeMarkdown, safeUrl } from "./escape-markdown.ts";
import { formatAge } from "./format-age.ts";
import { DASHBOARD_END, DASHBOARD_START, UPDATED_LINE_PREFIX } from "./markers.ts";
import { buildResumeIndex, formatResumeIndex } from "./resume-index.ts";
import type { ResumeIndexSigning } from "./resume-index.ts";

export interface RenderDashboardOptions {
  /** Phase map per agent name, for the "→ resume point" column. Default: the built-in maps. */
  phaseMaps?: Readonly<Record<string, Readonly<PhaseMap>>>;
  /** Liveness thresholds (see `liveness`). */
  liveness?: Partial<LivenessOptions>;
  /** How many anomalies to list, newest first. Default 10. */
  maxAnomalies?: number;
  /** Heading text. Default "checkpost dashboard". */
  title?: string;
  /** Sign the resume index (CHECKPOST_SIGNING_KEY and the issue): readers with the key ignore an index without it. */
  resumeIndexSigning?: ResumeIndexSigning;
}

const LIVENESS_LABEL: Record<LivenessState, string> = { active: "🟢 Active", stale: "🟡 Stale", silent: "🔴 Silent" };

/** "2026-11-29 10:00:00 UTC": whole seconds, no locale. */
function utc(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function link(text: string, url: string | undefined): string {
  const u = safeUrl(url);
  return u ? `[${text}](${u})` : text;
}

function ageSince(iso: string, now: Date): string {
  return formatAge(now.getTime() - Date.parse(iso));
}

function row(e: AgentEntry, now: Date, opts: RenderDashboardOptions): string {
  const maps = opts.phaseMaps ?? BUILTIN_PHASE_MAPS;
  const map = Object.hasOwn(maps, e.agent) ? maps[e.agent] : undefined;
  const l = e.latest;
  const phase = !l ? "— (fresh start)" : map ? `${escapeMarkdown(l.phase)} → ${escapeMarkdown(resumePointFor(l.phase, map))}` : escapeMarkdown(l.phase);
  const extra = l ? [l.seq !== undefined ? `seq ${l.seq}` : "", l.epoch ? `epoch ${l.epoch}` : ""].filter(Boolean) : [];
  const last = l ? [link(ageSince(l.createdAt, now), l.htmlUrl), ...extra].join(" · ") : "—";
  const h = e.health;
  const health = h ? link(`${escapeMarkdown(h.status, 24)} · ${ageSince(h.createdAt, now)}`, h.htmlUrl) : "—";
  const live = LIVENESS_LABEL[liveness(e, now, opts.liveness).state];
  return `| ${escapeMarkdown(e.agent)} | ${escapeMarkdown(e.session)} | ${phase} | ${last} | ${health} | ${live} |`;
}

function anomalyLine(a: Anomaly): string {
  const who = a.agent === null ? "" : ` · ${escapeMarkdown(a.agent)}${a.session === null ? "" : ` / ${escapeMarkdown(a.session)}`}`;
  return `- ${link(`comment ${a.commentId}`, a.htmlUrl)} **${a.kind}**${who}: ${escapeMarkdown(a.detail, 160)}`;
}

/**
 * The whole dashboard section, markers included: a heading, the "_Updated …_"
 * line, a table of agent sessions (sorted by agent, then session), the most
 * recent anomalies and the resume index. Deterministic for a given
 * (snapshot, now, opts); every value from comments is escaped.
 *
 * @example spliceDashboard(issue.body, renderDashboard(projection.snapshot(), new Date()))
 */
export function renderDashboard(snapshot: ProjectionSnapshot, now: Date, opts: RenderDashboardOptions = {}): string {
  const entries = snapshot.entries;
  // Newest first, trusted authors' anomalies before the per-author lines of untrusted ones,
  // so a flood of untrusted comments cannot push a real anomaly out of the list.
  const newest = [...snapshot.anomalies].reverse();
  const anomalies = [...newest.filter((a) => a.kind !== "untrusted-author"), ...newest.filter((a) => a.kind === "untrusted-author")].slice(0, Math.max(0, opts.maxAnomalies ?? 10));
  const lines = [DASHBOARD_START, `### ${escapeMarkdown(opts.title ?? "checkpost dashboard")}`, "", `${UPDATED_LINE_PREFIX}${utc(now)}_`, ""];
  const n = snapshot.anomalies.length;
  lines.push(`${entries.length} agent session${entries.length === 1 ? "" : "s"} · ${n} anomal${n === 1 ? "y" : "ies"}`, "");
  if (entries.length === 0) lines.push("_No checkpoints or health signals yet._");
  else {
    lines.push("| Agent | Session | Phase → resume point | Last checkpoint | Health | Liveness |", "| --- | --- | --- | --- | --- | --- |");
    for (const e of entries) lines.push(row(e, now, opts));
  }
  lines.push("", "#### Recent anomalies", "");
  if (anomalies.length === 0) lines.push("_None._");
  else for (const a of anomalies) lines.push(anomalyLine(a));
  lines.push("", formatResumeIndex(buildResumeIndex(snapshot), opts.resumeIndexSigning), DASHBOARD_END);
  return lines.join("\n");
}
