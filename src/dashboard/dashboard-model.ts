import { BUILTIN_PHASE_MAPS, compareCodePoints } from "../protocol/index.ts";
import type { PhaseMap } from "../protocol/index.ts";
import { decideResume } from "../projection/index.ts";
import type { AgentEntry, Anomaly, AnomalyKind, Liveness, LivenessOptions, NotUsedCheckpoint, ProjectionSnapshot } from "../projection/index.ts";
import { type IgnoredAuthors, ignoredAuthors } from "./ignored-authors.ts";
import type { UnconfirmedChange } from "./unconfirmed-change.ts";

export interface DashboardModelOptions {
  /** Phase map per agent name, for "→ resume point". Default: the built-in maps. */
  phaseMaps?: Readonly<Record<string, Readonly<PhaseMap>>>;
  liveness?: Partial<LivenessOptions>;
  /** Anomalies newer than this many (by comment id) count as "recent". Default 10. */
  maxAnomalies?: number;
  /** Most agent rows shown (needs-attention first). Default 50. */
  maxRows?: number;
  /** CHECKPOST_TRUSTED_AUTHORS as this reader has it: the ignored-authors line names the setting that admits them. */
  trustedAuthors?: readonly string[];
  /** Box changes found on restart and not run (the bot keeps them): each waits for its confirming command. */
  unconfirmed?: readonly UnconfirmedChange[];
}

/** Why a row needs a person, most urgent first. */
export type AttentionReason =
  | { kind: "silent" | "stale"; ageMs: number | null }
  | { kind: "anomaly"; anomaly: Anomaly }
  /** A checkpoint newer than the resume point was refused (the newest; `more` others too). */
  | { kind: "not-used"; notUsed: NotUsedCheckpoint; more: number }
  | { kind: "health"; status: string }
  | { kind: "paused"; by: string | null; at: string };

export interface DashboardRow {
  entry: AgentEntry;
  liveness: Liveness;
  /** The mapped resume point of the latest checkpoint, or null without a map / checkpoint. */
  resumePoint: string | null;
  reasons: AttentionReason[];
}

export interface DashboardModel {
  /** Rows needing attention, most urgent first (capped). */
  attention: DashboardRow[];
  /** Every shown row grouped by session (sessions and agents by code point); attention rows included. */
  sessions: { session: string; rows: DashboardRow[] }[];
  /** Rows not shown because of the cap. */
  omitted: number;
  /** Rows needing attention that the cap left out. */
  omittedAttention: number;
  /** Entries hidden by a `hide` control. */
  hidden: number;
  /** Entries with no trusted signal at all (only untrusted or unreadable comments): never shown. */
  untrustedOnly: number;
  /** Total entries with a row (shown or not). */
  total: number;
  /** The most recent anomalies, newest first, trusted kinds before untrusted-author ones. */
  anomalies: Anomaly[];
  anomalyCount: number;
  /** Authors whose checkpoints and signals were ignored (not trusted): a person must admit them or delete their comments. */
  ignored: IgnoredAuthors;
  /** CHECKPOST_TRUSTED_AUTHORS as given in the options, for the ignored-authors line. */
  trustedAuthors: readonly string[];
  /** Box changes made while the bot was down and not run: a person with write access confirms each with a command. */
  unconfirmed: readonly UnconfirmedChange[];
}

/** Anomaly kinds that say an outsider wrote something (one line per author); everything else is about a trusted writer. */
const OUTSIDER_KINDS: ReadonlySet<AnomalyKind> = new Set(["untrusted-author"]);
/** Health statuses that read as fine. */
const HEALTHY = /^(active|healthy|ok|running|idle)$/i;

function severity(r: DashboardRow): number {
  const k = r.reasons[0]?.kind;
  return k === "silent" ? 0 : k === "stale" ? 1 : k === "anomaly" || k === "not-used" ? 2 : k === "health" ? 3 : k === "paused" ? 4 : 5;
}

/**
 * What the dashboard and `checkpost status` show, as data: each agent+session
 * with a trusted signal classified (liveness, reasons it needs attention),
 * needs-attention rows first, then sessions; at most `maxRows` rows, so the
 * size is bounded whatever the number of agents. Pure.
 */
export function buildDashboardModel(snapshot: ProjectionSnapshot, now: Date, opts: DashboardModelOptions = {}): DashboardModel {
  const maps = opts.phaseMaps ?? BUILTIN_PHASE_MAPS;
  const maxRows = Math.max(1, opts.maxRows ?? 50);
  const recentCount = Math.max(0, opts.maxAnomalies ?? 10);
  // Newest first; a trusted writer's anomaly before an outsider's, so outsiders cannot push them out.
  const byNewest = [...snapshot.anomalies].reverse();
  const anomalies = [...byNewest.filter((a) => !OUTSIDER_KINDS.has(a.kind)), ...byNewest.filter((a) => OUTSIDER_KINDS.has(a.kind))].slice(0, recentCount);
  const recentByKey = new Map<string, Anomaly>();
  for (const a of anomalies) {
    if (OUTSIDER_KINDS.has(a.kind) || a.agent === null || a.session === null) continue;
    const k = JSON.stringify([a.agent, a.session]);
    if (!recentByKey.has(k)) recentByKey.set(k, a);
  }

  let hidden = 0;
  let untrustedOnly = 0;
  const rows: DashboardRow[] = [];
  for (const e of snapshot.entries) {
    if (e.latest === null && e.health === null && e.lastSignalAt === null) {
      untrustedOnly++;
      continue;
    }
    if (e.control?.hidden) {
      hidden++;
      continue;
    }
    const map = Object.hasOwn(maps, e.agent) ? maps[e.agent] : undefined;
    // The one resume decision every reader gives (src/projection/resume-decision.ts).
    const decision = decideResume(e.agent, e, { map: map ? { name: e.agent, map } : null, ...(opts.liveness ? { liveness: opts.liveness } : {}), now });
    const l = decision.liveness;
    const reasons: AttentionReason[] = [];
    if (e.control?.paused) reasons.push({ kind: "paused", by: e.control.paused.by, at: e.control.paused.at });
    else if (l.state !== "active") reasons.push({ kind: l.state, ageMs: l.ageMs });
    const a = recentByKey.get(JSON.stringify([e.agent, e.session]));
    const skipped = e.notUsed?.[0];
    // A newer checkpoint was not used: say why (and which setting decided) instead of only naming its anomaly.
    if (skipped) reasons.push({ kind: "not-used", notUsed: skipped, more: (e.notUsed?.length ?? 1) - 1 });
    if (a && a.commentId !== skipped?.commentId) reasons.push({ kind: "anomaly", anomaly: a });
    if (e.health && !HEALTHY.test(e.health.status)) reasons.push({ kind: "health", status: e.health.status });
    reasons.sort((x, y) => severity({ reasons: [x] } as DashboardRow) - severity({ reasons: [y] } as DashboardRow));
    rows.push({ entry: e, liveness: l, resumePoint: e.latest && decision.mapped ? decision.resume_point : null, reasons });
  }

  const needing = rows.filter((r) => r.reasons.length > 0);
  needing.sort((a, b) => severity(a) - severity(b) || (b.liveness.ageMs ?? Infinity) - (a.liveness.ageMs ?? Infinity) || cmp(a, b));
  const attention = needing.slice(0, maxRows);
  const shown = new Set<DashboardRow>(attention);
  for (const r of rows) {
    if (shown.size >= maxRows) break;
    shown.add(r);
  }
  const groups = new Map<string, DashboardRow[]>();
  for (const r of rows) {
    if (!shown.has(r)) continue;
    const g = groups.get(r.entry.session);
    if (g) g.push(r);
    else groups.set(r.entry.session, [r]);
  }
  const sessions = [...groups.entries()].sort((a, b) => compareCodePoints(a[0], b[0])).map(([session, rs]) => ({ session, rows: rs.sort(cmp) }));
  return {
    attention,
    sessions,
    omitted: rows.length - shown.size,
    omittedAttention: needing.length - attention.length,
    hidden,
    untrustedOnly,
    total: rows.length,
    anomalies,
    anomalyCount: snapshot.anomalies.length,
    ignored: ignoredAuthors(snapshot),
    trustedAuthors: opts.trustedAuthors ?? [],
    unconfirmed: opts.unconfirmed ?? [],
  };
}

function cmp(a: DashboardRow, b: DashboardRow): number {
  return compareCodePoints(a.entry.agent, b.entry.agent) || compareCodePoints(a.entry.session, b.entry.session);
}
