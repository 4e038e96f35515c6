/**
 * One benchmark scenario: a fresh embedded Forgejo (added latency, bandwidth
 * cap) holding a session issue of N comments, measured for the seed's
 * algorithm and for checkpost side by side.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startForge } from "../src/embedded-forge/index.ts";
import type { ForgeServer } from "../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import type { IssueHost } from "../src/ports/issue-host.ts";
import { SessionStore, DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../src/session-client/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../src/protocol/index.ts";
import { createProjection } from "../src/projection/index.ts";
import type { ProjectionSnapshot } from "../src/projection/index.ts";
import { extractResumeIndex, extractResumeIndexRef, findDashboardSections } from "../src/dashboard/index.ts";
import type { ResumeIndexRef } from "../src/dashboard/index.ts";
import { toCommentRecord } from "../src/session-client/index.ts";
import { AGENT_LOGIN, BOT_LOGIN, HUMAN_LOGIN, STRANGER_LOGIN, generateDataset, refOf } from "./data.ts";
import type { Dataset, Probe } from "./data.ts";
import { SeedClient } from "./seed-baseline.ts";
import { benchBotConfig, forkBot } from "./bot-harness.ts";
import { RESUME_INDEX_COMMENT_HEAD } from "../src/bot/upkeep/dashboard-writer.ts";
import { runIngest } from "./ingest.ts";
import type { IngestResult } from "./ingest.ts";
import { median } from "./http.ts";
import { measureWarmResume } from "./warm-resume.ts";

export interface ScenarioOptions {
  n: number;
  latencyMs: number;
  bandwidthBytesPerSec: number;
  saveReps: number;
  /** Repetitions of each probe for the expensive paths (seed, full read). */
  heavyReps: number;
  /** Repetitions of each probe for the index path. */
  lightReps: number;
  warmRequests: number;
  ingestMs: number;
  ingestConcurrency: number;
  /** Skip the bot (tests of the cold paths only). */
  bot?: boolean;
  /**
   * Cold resume is measured right after the index write and again after this long of fleet traffic
   * the index does not know yet (the bot writes at most once per 10 s window). Default 10,000 ms.
   */
  trafficMs?: number;
  /** Comments per second of that traffic. Default 2. */
  trafficPerSecond?: number;
  log?: (line: string) => void;
}

export interface Cost {
  requests: number;
  bytes: number;
  ms: number;
}
export interface CostSummary {
  runs: number;
  /** medians per call */
  requests: number;
  bytes: number;
  ms: number;
  maxMs: number;
  maxRequests: number;
  maxBytes: number;
}
export interface ProbeAnswer {
  kind: Probe["kind"];
  what: string;
  truth: string;
  answer: string | null;
  correct: boolean;
  via?: string;
}
export interface ResumeMeasure {
  cost: CostSummary;
  answers: ProbeAnswer[];
  correct: number;
  total: number;
}

export interface ScenarioResult {
  n: number;
  datasetBytes: number;
  save: { seed: CostSummary; checkpost: CostSummary };
  cold: {
    seed: ResumeMeasure;
    /** Right after the bot wrote the index; the token's login from the CLI's cache (as the issue number). */
    checkpostIndex: ResumeMeasure;
    /** The same after `trafficMs` of traffic posted since that write (the index's tail at its longest). */
    checkpostIndexLater: ResumeMeasure;
    /** One resume as a machine's first CLI call makes it (login not cached yet: + GET /user). */
    firstCall: CostSummary;
    traffic: { comments: number; ms: number };
    checkpostFull: ResumeMeasure;
  } | null;
  bot: {
    startMs: number;
    startRequests: number;
    startBytes: number;
    /** The bot process with every module loaded, before createBot (tsx, probot, pino, prom-client…). */
    rssBaselineMb: number;
    rssAfterStartMb: number;
    heapAfterStartMb: number;
    rssAfterIngestMb: number;
    heapAfterIngestMb: number;
    dashboardFlushRequests: number;
    indexBytes: number;
    warm: { requests: number; p50Ms: number; p99Ms: number; maxMs: number; forgeRequests: number; correct: number; total: number };
    ingest: IngestResult & {
      /** The bot process's CPU time (user + system) over the ingest, per delivery. */
      botCpuMsPerDelivery: number;
      botHandleP99Ms: number | null;
      dashboardWrites: number;
      applied: number;
      lost: number;
      projectionMatches: boolean;
      botComments: number;
      forgeComments: number;
    };
  } | null;
}

const OWNER = AGENT_LOGIN;
const REPO = "work";
const MB = 1024 * 1024;

function summarize(costs: Cost[]): CostSummary {
  return {
    runs: costs.length,
    requests: median(costs.map((c) => c.requests)),
    bytes: median(costs.map((c) => c.bytes)),
    ms: median(costs.map((c) => c.ms)),
    maxMs: Math.max(...costs.map((c) => c.ms)),
    maxRequests: Math.max(...costs.map((c) => c.requests)),
    maxBytes: Math.max(...costs.map((c) => c.bytes)),
  };
}

/** Run `fn` with the forge's counters reset; the forge must see no other traffic meanwhile. */
async function metered<T>(forge: ForgeServer, fn: () => Promise<T>): Promise<{ value: T; cost: Cost }> {
  forge.admin.resetStats();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const s = forge.admin.stats();
  return { value, cost: { requests: s.totalRequests, bytes: s.bytesSent, ms } };
}

/** What the probes should get, and the snapshot a full rebuild gives (the reference for "lost"). */
function comparable(s: ProjectionSnapshot, withUpdatedAt = true) {
  return JSON.stringify({ watermark: s.watermark, ...(withUpdatedAt ? { watermarkUpdatedAt: s.watermarkUpdatedAt } : {}), comments: s.comments, entries: s.entries, anomalies: s.anomalies });
}

/**
 * The bot's projection equals a full rebuild's. The bench's bot gets only the bench's webhooks, none for
 * its own edits of its resume index comment: when that edit is the newest update of the list, the
 * rebuild's watermark time is that edit's, and that one difference is allowed.
 */
function projectionMatches(ref: ProjectionSnapshot, bot: ProjectionSnapshot, all: readonly { author: string; body: string; updatedAt: string }[]): boolean {
  if (comparable(ref) === comparable(bot)) return true;
  const newest = all.reduce<(typeof all)[number] | null>((m, c) => (m === null || Date.parse(c.updatedAt) > Date.parse(m.updatedAt) ? c : m), null);
  const ownIndexEditLast = newest !== null && newest.author === BOT_LOGIN && newest.body.startsWith(RESUME_INDEX_COMMENT_HEAD);
  return ownIndexEditLast && comparable(ref, false) === comparable(bot, false);
}

export interface World {
  forge: ForgeServer;
  issue: number;
  agentToken: string;
  botToken: string;
  dataset: Dataset;
  newApi(token?: string): IssueHost;
}

export async function createWorld(n: number, o: Pick<ScenarioOptions, "latencyMs" | "bandwidthBytesPerSec">, now = Date.now()): Promise<World> {
  const forge = await startForge({ port: 0 });
  const a = forge.admin;
  for (const u of [AGENT_LOGIN, BOT_LOGIN, HUMAN_LOGIN, STRANGER_LOGIN]) a.createUser(u);
  const agentToken = a.createToken(AGENT_LOGIN);
  const botToken = a.createToken(BOT_LOGIN);
  a.createRepo(OWNER, REPO);
  a.addCollaborator(OWNER, REPO, BOT_LOGIN, "write");
  a.createLabel(OWNER, REPO, { name: DEFAULT_SESSION_LABEL });
  a.createLabel(OWNER, REPO, { name: "Type/Bug" });
  // A few other open issues, as a real repository has.
  for (let i = 1; i <= 5; i++) a.createIssue(OWNER, REPO, { title: `Bug ${i}: flaky test`, body: "steps to reproduce…", labels: ["Type/Bug"], createdAt: now - 80 * 3600_000 });
  const issue = a.createIssue(OWNER, REPO, {
    title: DEFAULT_SESSION_TITLE,
    body: "Session notes by a person: please do not close.",
    labels: [DEFAULT_SESSION_LABEL],
    createdAt: now - 73 * 3600_000,
  }).number;
  const dataset = generateDataset(n, now);
  for (let i = 0; i < dataset.comments.length; i += 10_000)
    a.bulkComments(
      OWNER,
      REPO,
      issue,
      dataset.comments.slice(i, i + 10_000).map((c) => ({ login: c.login, body: c.body, createdAt: c.at })),
    );
  a.setFaults({ latencyMs: o.latencyMs, bandwidthBytesPerSec: o.bandwidthBytesPerSec });
  const newApi = (token = agentToken) => new ForgejoApi(new ForgejoClient({ url: forge.url, token, timeoutMs: 120_000 }));
  return { forge, issue, agentToken, botToken, dataset, newApi };
}

async function coldSeed(w: World, probes: Probe[], reps: number): Promise<ResumeMeasure> {
  const costs: Cost[] = [];
  const answers: ProbeAnswer[] = [];
  for (const p of probes)
    for (let r = 0; r < reps; r++) {
      const seed = new SeedClient({ apiUrl: w.forge.apiUrl, token: w.agentToken, owner: OWNER, repo: REPO });
      const { value, cost } = await metered(w.forge, () => seed.loadLatestCheckpoint(p.agent, p.session));
      costs.push(cost);
      const ref = refOf(value?.data);
      if (r === 0) answers.push({ kind: p.kind, what: p.what, truth: p.truth, answer: ref, correct: ref === p.truth });
    }
  return { cost: summarize(costs), answers, correct: answers.filter((x) => x.correct).length, total: answers.length };
}

/**
 * A new client and store, as a fresh CLI process has: the issue number and (`login`) the token's
 * login from its per-machine cache (src/cli/login-cache.ts), nothing else.
 */
async function coldCheckpost(w: World, probes: Probe[], reps: number, login?: string, refs?: Map<number, ResumeIndexRef>): Promise<ResumeMeasure> {
  const costs: Cost[] = [];
  const answers: ProbeAnswer[] = [];
  for (const p of probes)
    for (let r = 0; r < reps; r++) {
      const remembered = login !== undefined ? { selfLogin: login, selfLoginRemembered: true } : {};
      // `refs`: the CLI's index-refs.json (where the bot's index comment is), as a machine that resumed before has it.
      const indexRefs = refs ? { indexRefs: { get: (i: number) => refs.get(i), set: (i: number, r: ResumeIndexRef) => void refs.set(i, r) } } : {};
      // The bot writes the index comment (and carries checkpoints): its login is trusted, as docs/security.md requires.
      const store = new SessionStore({ api: w.newApi(), repo: { owner: OWNER, repo: REPO }, issue: w.issue, trustedAuthors: [BOT_LOGIN], ...remembered, ...indexRefs });
      const { value, cost } = await metered(w.forge, () => store.resume(p.agent, p.session, IMPLEMENTATION_WORKER_PHASE_MAP));
      costs.push(cost);
      const ref = refOf(value.state);
      if (r === 0) answers.push({ kind: p.kind, what: p.what, truth: p.truth, answer: ref, correct: ref === p.truth, via: (value as { via?: string }).via ?? "?" });
    }
  return { cost: summarize(costs), answers, correct: answers.filter((x) => x.correct).length, total: answers.length };
}

/**
 * A busy fleet's comments, posted for real at `perSecond` for `ms` (checkpoints and health signals
 * of agents the probes do not ask about), which the index does not know of.
 */
async function postTraffic(w: World, ms: number, perSecond: number): Promise<{ comments: number; ms: number }> {
  const api = w.newApi();
  const repo = { owner: OWNER, repo: REPO };
  const t0 = performance.now();
  let i = 0;
  const total = Math.round((ms / 1000) * perSecond);
  while (i < total) {
    const wait = t0 + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const agent = `fleet-${i % 20}`;
    const now = pythonUtcIsoformat(new Date());
    const body =
      i % 5 < 3
        ? formatCheckpoint({ agent, session: "sess-fleet", phase: "subtask_1_complete", timestamp: now, data: { step: i, notes: "x".repeat(900) } })
        : formatHealth({ agent, session: "sess-fleet", timestamp: now, status: "Active", metrics: { cycle_count: i, queue_depth: 3 } });
    await api.postRecord(repo, w.issue, body);
    i++;
  }
  const left = t0 + ms - performance.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  return { comments: total, ms: performance.now() - t0 };
}

/** The scenario's save measurement (its checkpoints are in the issue before the bot's first read). */
export async function savesForBench(w: World, reps: number) {
  const seedCosts: Cost[] = [];
  const cpCosts: Cost[] = [];
  const data = { issue_number: 7, branch_name: "feat/bench", completed_subtasks: [1, 2, 3], working_dir: "/tmp/work/1", notes: "x".repeat(600) };
  const seed = new SeedClient({ apiUrl: w.forge.apiUrl, token: w.agentToken, owner: OWNER, repo: REPO });
  // A long-lived agent's handle: it knows the issue (CLI: issue cache), as the seed's agent knows its repo.
  const store = new SessionStore({ api: w.newApi(), repo: { owner: OWNER, repo: REPO }, issue: w.issue, selfLogin: AGENT_LOGIN });
  for (let i = 0; i < reps; i++) {
    seedCosts.push((await metered(w.forge, () => seed.saveState("bench-saver", "sess-save", `subtask_${i}_complete`, data))).cost);
    cpCosts.push((await metered(w.forge, () => store.save({ agent: "bench-saver-cp", session: "sess-save", phase: `subtask_${i}_complete`, data }))).cost);
  }
  return { seed: summarize(seedCosts), checkpost: summarize(cpCosts) };
}

function histogramQuantile(buckets: { le: string | number | undefined; count: number }[], total: number, q: number): number | null {
  if (!total) return null;
  const target = q * total;
  for (const b of buckets) if (b.count >= target) return b.le === "+Inf" ? Infinity : Number(b.le) * 1000;
  return null;
}

type BotStats = {
  handle: { buckets: { le: string | number | undefined; count: number }[]; count: number; sum: number };
  deliveries: { labels: Record<string, string | number>; value: number }[];
  dashboardWrites: number;
};

export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const log = o.log ?? (() => {});
  const w = await createWorld(o.n, o);
  const { forge } = w;
  const result: ScenarioResult = { n: o.n, datasetBytes: w.dataset.bytes, save: { seed: summarize([]), checkpost: summarize([]) }, cold: null, bot: null };
  const botChild = o.bot === false ? null : await forkBot();
  // The bot's store on a file, as `npm start` keeps it: an in-memory SQLite store would hold every body in the process.
  const storeDir = mkdtempSync(join(tmpdir(), "checkpost-bench-store-"));
  try {
    log(`N=${o.n}: save ×${o.saveReps}`);
    result.save = await savesForBench(w, o.saveReps);

    let indexBytes = 0;
    let startInfo: { url: string; startMs: number; memory: { rss: number; heapUsed: number }; comments: number } | null = null;
    let startCost: Cost = { requests: 0, bytes: 0, ms: 0 };
    let flushCost: Cost = { requests: 0, bytes: 0, ms: 0 };
    const secret = randomBytes(16).toString("hex");
    const cfg = { ...benchBotConfig({ forgeUrl: forge.url, token: w.botToken, owner: OWNER, repo: REPO, secret, trusted: [AGENT_LOGIN] }), storeFile: join(storeDir, "projection.sqlite") };
    const repoRef = { owner: OWNER, repo: REPO };
    let baseline = { rss: 0 };
    if (botChild) {
      baseline = await botChild.call<{ rss: number }>("memory");
      log(`N=${o.n}: bot start (reads the issue) and first dashboard write`);
      const s = await metered(forge, () => botChild.call<NonNullable<typeof startInfo>>("start", { config: cfg }));
      startInfo = s.value;
      startCost = s.cost;
      flushCost = (await metered(forge, () => botChild.call("flush"))).cost;
    } else {
      // No bot: write the resume index the way the bot does (render + splice over a full projection).
      const { renderDashboard, spliceDashboard } = await import("../src/dashboard/index.ts");
      const api = w.newApi(w.botToken);
      const p = createProjection({ trustedAuthors: new Set([AGENT_LOGIN, BOT_LOGIN]) });
      p.replaceAll((await api.listCommentsSince(repoRef, w.issue)).map(toCommentRecord));
      const body = (await api.readIssue(repoRef, w.issue)).body;
      await api.writeIssueBody(repoRef, w.issue, spliceDashboard(body, renderDashboard(p.snapshot(), new Date())));
    }
    const api = w.newApi();
    const withIndex = (await api.readIssue(repoRef, w.issue)).body;
    if (!extractResumeIndex(withIndex) && !extractResumeIndexRef(withIndex)) throw new Error("no resume index (nor a pointer to its comment) in the issue body after the dashboard write");
    indexBytes = Buffer.byteLength(withIndex);

    log(`N=${o.n}: cold resume, checkpost with the resume index, right after its write`);
    // The machine resumed once before (not measured): its cache knows where the index comment is.
    const refs = new Map<number, ResumeIndexRef>();
    await coldCheckpost(w, w.dataset.probes.slice(0, 1), 1, AGENT_LOGIN, refs);
    const checkpostIndex = await coldCheckpost(w, w.dataset.probes, o.lightReps, AGENT_LOGIN, refs);
    const firstCall = (await coldCheckpost(w, w.dataset.probes.slice(0, 1), o.lightReps)).cost;
    log(`N=${o.n}: cold resume, seed algorithm`);
    const seed = await coldSeed(w, w.dataset.probes, o.heavyReps);
    log(`N=${o.n}: cold resume, checkpost without an index (full read)`);
    let plain = "";
    let at = 0;
    for (const sec of findDashboardSections(withIndex)) {
      plain += withIndex.slice(at, sec.start);
      at = sec.end;
    }
    plain += withIndex.slice(at);
    await api.writeIssueBody(repoRef, w.issue, plain);
    const checkpostFull = await coldCheckpost(w, w.dataset.probes, o.heavyReps);
    await api.writeIssueBody(repoRef, w.issue, withIndex);
    const trafficMs = o.trafficMs ?? 10_000;
    log(`N=${o.n}: ${trafficMs / 1000} s of traffic the index does not know, then cold resume again`);
    const traffic = await postTraffic(w, trafficMs, o.trafficPerSecond ?? 2);
    const checkpostIndexLater = await coldCheckpost(w, w.dataset.probes, o.lightReps, AGENT_LOGIN, refs);
    // The bot catches up (one poll) so the ingest below compares against every comment.
    if (botChild) {
      await botChild.call("poll");
      await botChild.call("flush"); // now, not on its timer during the warm-resume count
    }
    result.cold = { seed, checkpostIndex, checkpostIndexLater, firstCall, traffic, checkpostFull };

    if (botChild && startInfo) {
      log(`N=${o.n}: warm resume ×${o.warmRequests} through the bot's API`);
      const warm = await measureWarmResume({ forge, botUrl: startInfo.url, probes: w.dataset.probes, requests: o.warmRequests });

      log(`N=${o.n}: webhook ingest for ${o.ingestMs / 1000} s`);
      const before = await botChild.call<BotStats>("stats");
      forge.admin.resetStats();
      const cpuBefore = await botChild.call<NodeJS.CpuUsage>("cpu");
      // BENCH_ALLOC_PROFILE=DIR: the bot's sampled allocations during the ingest (bench/alloc-summary.ts).
      const allocDir = process.env["BENCH_ALLOC_PROFILE"];
      if (allocDir) await botChild.call("alloc-start");
      const ing = await runIngest({
        forge,
        owner: OWNER,
        repo: REPO,
        issue: w.issue,
        botUrl: startInfo.url,
        webhookPath: cfg.webhookPath,
        secret,
        durationMs: o.ingestMs,
        concurrency: o.ingestConcurrency,
        seed: o.n + 7,
      });
      await botChild.call("idle");
      const cpuAfter = await botChild.call<NodeJS.CpuUsage>("cpu");
      if (allocDir) await botChild.call("alloc-stop", { file: join(allocDir, `ingest-${o.n}.heapprofile`) });
      const after = await botChild.call<BotStats>("stats");
      const botSnap = await botChild.call<ProjectionSnapshot>("snapshot");
      const memAfter = await botChild.call<{ rss: number; heapUsed: number }>("memory");
      // Reference: a full rebuild from the forge's complete comment list (no faults: it is not measured).
      const saved = forge.admin.getFaults();
      forge.admin.setFaults({});
      const all = await w.newApi(w.botToken).listCommentsSince(repoRef, w.issue);
      forge.admin.setFaults(saved);
      const ref = createProjection({ trustedAuthors: new Set([AGENT_LOGIN.toLowerCase(), BOT_LOGIN.toLowerCase()]) });
      ref.replaceAll(all.map(toCommentRecord));
      const refSnap = ref.snapshot();
      // Histogram buckets are cumulative; subtract the counts seen before the ingest.
      const buckets = after.handle.buckets.map((b, i) => ({ le: b.le, count: b.count - (before.handle.buckets[i]?.count ?? 0) }));
      const applied = (s: BotStats) => s.deliveries.filter((d) => d.labels.result === "applied").reduce((x, d) => x + d.value, 0);
      result.bot = {
        startMs: startInfo.startMs,
        startRequests: startCost.requests,
        startBytes: startCost.bytes,
        rssBaselineMb: baseline.rss / MB,
        rssAfterStartMb: startInfo.memory.rss / MB,
        heapAfterStartMb: startInfo.memory.heapUsed / MB,
        rssAfterIngestMb: memAfter.rss / MB,
        heapAfterIngestMb: memAfter.heapUsed / MB,
        dashboardFlushRequests: flushCost.requests,
        indexBytes,
        warm,
        ingest: {
          ...ing,
          botCpuMsPerDelivery: (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / 1000 / Math.max(1, ing.deliveries),
          botHandleP99Ms: histogramQuantile(buckets, after.handle.count - before.handle.count, 0.99),
          dashboardWrites: after.dashboardWrites - before.dashboardWrites,
          applied: applied(after) - applied(before),
          lost: Math.max(0, refSnap.comments - botSnap.comments) + Math.max(0, ing.inserted - (applied(after) - applied(before))),
          projectionMatches: projectionMatches(refSnap, botSnap, all),
          botComments: botSnap.comments,
          forgeComments: refSnap.comments,
        },
      };
    }
    return result;
  } finally {
    if (botChild) {
      await botChild.call("stop").catch(() => botChild.kill());
    }
    await forge.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
}
