import type { IncomingMessage, ServerResponse } from "node:http";
import { BUILTIN_PHASE_MAPS } from "../../protocol/index.ts";
import { decideResume, freshnessOf, liveness } from "../../projection/index.ts";
import type { WatchedIssue } from "../tracker-ports.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import type { BotConfig } from "../bot-config.ts";

export interface ApiDeps {
  trackers: () => WatchedIssue[];
  ready: () => boolean;
  /** The bot's own login: /healthz names it, so `doctor` can warn a person whose token is the bot's (their commands are ignored). */
  selfLogin?: string;
  /** Replicas: whether the shared store answers (readiness goes false while it does not). */
  storeAvailable?: () => boolean;
  metrics: BotMetrics;
  config: Pick<BotConfig, "liveness" | "pollIntervalMs" | "reconcileIntervalMs">;
  now: () => Date;
  /** Replicas: fold what the issue's leader stored up to now, before a follower answers (ReplicaCoordinator.readThrough). */
  readThrough?: (t: WatchedIssue) => Promise<void>;
}

/** One GET route of the bot's API: answers from memory, never asks Forgejo. */
export type ApiRoute = (url: URL, res: ServerResponse, d: ApiDeps, req: IncomingMessage) => Promise<true> | true;

function send(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
  return true;
}

/** Pick the tracker a query means: explicit repo+issue, or the only one holding the agent+session; then its chain's head. */
function pick(trackers: WatchedIssue[], q: URLSearchParams, agent?: string, session?: string): WatchedIssue | { status: number; error: string } {
  const picked = pickIssue(trackers, q, agent, session);
  return "projection" in picked ? headOf(trackers, picked) : picked;
}

/** A rolled-over issue answers for its chain: the successor's tracker (its head's), never the closed issue's. */
function headOf(trackers: WatchedIssue[], t: WatchedIssue): WatchedIssue {
  const seen = new Set<WatchedIssue>([t]);
  for (let next = t.successor; next !== undefined; ) {
    const s = trackers.find((x) => x.repo.owner === t.repo.owner && x.repo.repo === t.repo.repo && x.issue === next);
    if (!s || seen.has(s)) break;
    seen.add(s);
    t = s;
    next = s.successor;
  }
  return t;
}

function pickIssue(trackers: WatchedIssue[], q: URLSearchParams, agent?: string, session?: string): WatchedIssue | { status: number; error: string } {
  const repo = q.get("repo");
  const issue = q.get("issue");
  if (repo || issue) {
    const t = trackers.find((x) => `${x.repo.owner}/${x.repo.repo}` === repo && String(x.issue) === issue);
    return t ?? { status: 404, error: `no watched session issue ${repo}#${issue}` };
  }
  // Issues that rolled over are answered for by their heads.
  const open = trackers.filter((t) => t.successor === undefined);
  if (open.length === 1) return open[0] as WatchedIssue;
  // Mid-rollover (the successor is opened and being carried into, not watched yet): the newest issue still holds everything.
  if (open.length === 0) {
    const newest = newestOfOneRepo(trackers);
    if (newest) return newest;
  }
  if (agent !== undefined && session !== undefined) {
    const holding = open.filter((t) => t.projection.snapshot().entries.some((e) => e.agent === agent && e.session === session));
    if (holding.length === 1) return holding[0] as WatchedIssue;
  }
  return newestOfOneRepo(open) ?? { status: 400, error: `${open.length} session issues are watched: pass repo=owner/repo&issue=N` };
}

/**
 * Watched issues of one repository are one session chain, opened in order, so its head is the newest.
 * A replica (or a bot that restarted mid-rollover) can watch both ends of a rollover before it has read
 * the successor link; answering 400 then made a reader fail for no reason the user could act on.
 * Trackers of several repositories stay ambiguous (undefined).
 */
export function newestOfOneRepo<T extends { repo: { owner: string; repo: string }; issue: number }>(open: readonly T[]): T | undefined {
  const first = open[0];
  if (!first || open.some((t) => t.repo.owner !== first.repo.owner || t.repo.repo !== first.repo.repo)) return undefined;
  return open.reduce((a, b) => (b.issue > a.issue ? b : a));
}

const healthz: ApiRoute = (_url, res, d) => send(res, 200, { status: "ok", ...(d.selfLogin ? { login: d.selfLogin } : {}) });

const readyz: ApiRoute = (_url, res, d) =>
  !d.ready() ? send(res, 503, { status: "starting" }) : d.storeAvailable?.() === false ? send(res, 503, { status: "store unavailable" }) : send(res, 200, { status: "ready" });

const metrics: ApiRoute = async (_url, res, d): Promise<true> => {
  const trackers = d.trackers();
  const counts: Record<string, number> = { active: 0, stale: 0, silent: 0 };
  for (const t of trackers) {
    t.updateGauges();
    for (const s of Object.values(t.livenessStates())) counts[s] = (counts[s] ?? 0) + 1;
  }
  for (const [k, v] of Object.entries(counts)) d.metrics.agents.set({ liveness: k }, v);
  const text = await d.metrics.registry.metrics();
  res.writeHead(200, { "content-type": d.metrics.registry.contentType });
  res.end(text);
  return true;
};

const sessions: ApiRoute = (_url, res, d) =>
  send(
    res,
    200,
    d.trackers().map((t) => {
      const s = t.projection.snapshot();
      return { repo: `${t.repo.owner}/${t.repo.repo}`, issue: t.issue, comments: s.comments, agents: s.entries.length, anomalies: s.anomalies.length, watermark: s.watermark };
    }),
  );

const agents: ApiRoute = (url, res, d) => {
  const t = pick(d.trackers(), url.searchParams);
  if (!("projection" in t)) return send(res, t.status, { error: t.error });
  const now = d.now();
  const snap = t.projection.snapshot();
  return send(res, 200, {
    repo: `${t.repo.owner}/${t.repo.repo}`,
    issue: t.issue,
    agents: snap.entries.map((e) => ({ ...e, liveness: liveness(e, now, d.config.liveness) })),
    anomalies: snap.anomalies,
  });
};

/**
 * How old the last read may be before an answer may be stale: three poll intervals when polling, two
 * reconciles when only webhooks (a lost delivery is found by the next reconcile), no bound with both off.
 */
export function freshnessBudgetMs(c: Pick<BotConfig, "pollIntervalMs" | "reconcileIntervalMs">): number | null {
  if (c.pollIntervalMs > 0) return Math.max(3 * c.pollIntervalMs, 30_000);
  if (c.reconcileIntervalMs > 0) return 2 * c.reconcileIntervalMs;
  return null;
}

const resume: ApiRoute = async (url, res, d): Promise<true> => {
  if (!d.ready()) return send(res, 503, { error: "starting: the first read of the session issue is not done" });
  const agent = url.searchParams.get("agent");
  const session = url.searchParams.get("session");
  if (!agent || !session) {
    d.metrics.resumes.inc({ result: "bad_request" });
    return send(res, 400, { error: "agent and session are required: /api/resume?agent=A&session=S" });
  }
  // No map: the built-in map named like the agent, else none (the agent resumes at its own phase), as every reader does.
  const mapName = url.searchParams.get("map");
  // Own keys only: map=__proto__ or map=constructor must be a 400, not Object.prototype's members.
  const map = mapName === null ? undefined : Object.hasOwn(BUILTIN_PHASE_MAPS, mapName) ? BUILTIN_PHASE_MAPS[mapName] : null;
  if (map === null) return send(res, 400, { error: `unknown map "${mapName}" (built-in: ${Object.keys(BUILTIN_PHASE_MAPS).join(", ")})` });
  const t = pick(d.trackers(), url.searchParams, agent, session);
  if (!("projection" in t)) {
    d.metrics.resumes.inc({ result: "bad_request" });
    return send(res, t.status, { error: t.error });
  }
  // A follower replica answers what the leader stored, not what its feed brought a round ago.
  let readThroughError: string | null = null;
  if (d.readThrough && t.lease.current() === null) {
    try {
      await d.readThrough(t);
    } catch (e) {
      readThroughError = e instanceof Error ? e.message : String(e);
    }
  }
  const now = d.now();
  // The one resume decision (src/projection/resume-decision.ts), from what this process holds of the head.
  const answer = decideResume(agent, t.projection.entry(agent, session), {
    ...(map !== undefined && mapName !== null ? { map: { name: mapName, map } } : {}),
    liveness: d.config.liveness,
    now,
  });
  d.metrics.resumes.inc({ result: answer.checkpoint ? "found" : "fresh" });
  // Not snapshot(): it derives and sorts every entry and anomaly (~20 % of a warm call's allocations, bench/warm-probe.ts).
  const freshness = freshnessOf({ asOf: t.asOf, watermark: t.projection.watermark(), watermarkUpdatedAt: t.projection.watermarkUpdatedAt(), budgetMs: freshnessBudgetMs(d.config), now });
  return send(res, 200, {
    ...answer,
    repo: `${t.repo.owner}/${t.repo.repo}`,
    issue: t.issue,
    freshness:
      readThroughError === null
        ? freshness
        : { ...freshness, may_be_stale: true, reason: `this replica does not lead the issue and could not read what its leader stored (${readThroughError.slice(0, 200)}): the answer may be behind` },
  });
};

/** The bot's API routes by path (docs/bot-api.openapi.yaml documents exactly these). */
export const apiRoutes: Readonly<Record<string, ApiRoute>> = {
  "/healthz": healthz,
  "/readyz": readyz,
  "/metrics": metrics,
  "/api/sessions": sessions,
  "/api/agents": agents,
  "/api/resume": resume,
};
