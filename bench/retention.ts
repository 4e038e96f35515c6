/**
 * `npm run bench:retention`: bounded history (docs/retention.md, docs/benchmarks.md).
 *  (a) a 72-hour simulated session, 20 agents, health every 5 min, a checkpoint every 20 min: live issue
 *      size over time with and without rollover + compaction, and resume checked every simulated hour for
 *      checkpost's projection and for the seed's algorithm (newest `Time:` among the last 24 h of comments of
 *      the open issue). Pure model: the real comment bodies, projection, carried bodies and compaction
 *      selection, no HTTP.
 *  (b) bot start time at N comments: first start (full read from Forgejo) vs restart from the store, and the
 *      comment-list requests each makes, against the embedded Forgejo in this process.
 * Options: --sizes 1000,10000,50000  --hours 72  --out FILE
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createBot } from "../src/bot/create-bot.ts";
import { defaultBotConfig } from "../src/bot/bot-config.ts";
import { selectSupersededHealth } from "../src/compaction/select-superseded-health.ts";
import { startForge } from "../src/forge/index.ts";
import { createLogger } from "../src/log/create-logger.ts";
import { createProjection } from "../src/projection/index.ts";
import type { CommentRecord } from "../src/projection/index.ts";
import { formatCheckpoint, formatHealth, parseComment, pythonUtcIsoformat } from "../src/protocol/index.ts";
import { carriedBody } from "../src/rollover/carried-body.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../src/store/index.ts";
import { AGENT_LOGIN, BOT_LOGIN, HUMAN_LOGIN, STRANGER_LOGIN, generateDataset } from "./data.ts";

const argv = process.argv.slice(2);
const arg = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
const sizes = (arg("--sizes") ?? "1000,10000,50000").split(",").map(Number);
const hours = Number(arg("--hours") ?? 72);

// ---------- (a) the 72-hour session ----------
interface Sim {
  label: string;
  rolloverAt: number;
  retentionMs: number;
}
function simulate(s: Sim) {
  const agents = Array.from({ length: 20 }, (_, i) => `agent-${String(i).padStart(2, "0")}`);
  const t0 = Date.parse("2026-11-26T00:00:00Z");
  const policy = { trustedAuthors: new Set([AGENT_LOGIN, BOT_LOGIN]) };
  let nextId = 1;
  let issue = 1;
  let live: CommentRecord[] = [];
  const truth = new Map<string, number>(); // agent → seq of its newest checkpoint
  const sizes: { hour: number; issue: number; comments: number }[] = [];
  let maxLive = 0;
  let rollovers = 0;
  let compacted = 0;
  let resumeChecks = 0;
  let checkpostWrong = 0;
  let seedWrong = 0;
  const seqOf = new Map<string, number>();
  const post = (at: number, author: string, body: string) => live.push({ id: nextId++, author, body, createdAt: new Date(at).toISOString(), updatedAt: new Date(at).toISOString() });
  for (let minute = 0; minute < hours * 60; minute++) {
    const at = t0 + minute * 60_000;
    for (const [i, agent] of agents.entries()) {
      if ((minute + i) % 5 === 0) post(at, AGENT_LOGIN, formatHealth({ agent, session: "s1", timestamp: pythonUtcIsoformat(new Date(at)), metrics: { minute } }));
      if ((minute + i) % 20 === 0) {
        const seq = (seqOf.get(agent) ?? 0) + 1;
        seqOf.set(agent, seq);
        truth.set(agent, seq);
        post(at, AGENT_LOGIN, formatCheckpoint({ agent, session: "s1", phase: `step_${seq}`, timestamp: pythonUtcIsoformat(new Date(at)), seq, epoch: 1, data: { seq } }));
      }
    }
    maxLive = Math.max(maxLive, live.length);
    // The writer's upkeep: compaction hourly, rollover when over the threshold.
    if (s.retentionMs > 0 && minute % 60 === 59) {
      const gone = new Set(selectSupersededHealth(live, policy, at, s.retentionMs).map((c) => c.id));
      compacted += gone.size;
      live = live.filter((c) => !gone.has(c.id));
    }
    if (s.rolloverAt > 0 && live.length >= s.rolloverAt) {
      const p = createProjection(policy);
      p.replaceAll(live);
      const carry: CommentRecord[] = [];
      for (const e of p.snapshot().entries) for (const id of [e.latest?.commentId, e.health?.commentId]) if (id !== undefined) carry.push(live.find((c) => c.id === id) as CommentRecord);
      const old = issue++;
      live = [];
      rollovers++;
      for (const c of carry.sort((a, b) => a.id - b.id)) post(at, BOT_LOGIN, carriedBody(c.body, { issue: old, commentId: c.id }));
    }
    if (minute % 60 === 59) {
      sizes.push({ hour: (minute + 1) / 60, issue, comments: live.length });
      // Resume every simulated hour, for every agent: checkpost's projection and the seed's algorithm.
      const p = createProjection(policy);
      p.replaceAll(live);
      const recent = live.filter((c) => at - Date.parse(c.createdAt) <= 24 * 3600_000);
      for (const agent of agents) {
        resumeChecks++;
        if (p.latest(agent, "s1")?.seq !== truth.get(agent)) checkpostWrong++;
        let best: { ts: string; seq: unknown } | null = null;
        for (const c of recent) {
          const r = parseComment(c.body);
          if (r.kind !== "checkpoint" || r.checkpoint.agent !== agent) continue;
          const ts = r.checkpoint.timestamp ?? "";
          if (!best || ts > best.ts) best = { ts, seq: (r.checkpoint.data as { seq?: number }).seq };
        }
        if (best?.seq !== truth.get(agent)) seedWrong++;
      }
    }
  }
  return { ...s, written: nextId - 1, maxLive, finalLive: live.length, rollovers, compacted, resumeChecks, checkpostWrong, seedWrong, sizes };
}

// ---------- (b) restart time ----------
async function restartAt(n: number) {
  const forge = await startForge({ port: 0 });
  const a = forge.admin;
  for (const u of [AGENT_LOGIN, BOT_LOGIN, HUMAN_LOGIN, STRANGER_LOGIN]) a.createUser(u);
  const token = a.createToken(BOT_LOGIN);
  a.createRepo(AGENT_LOGIN, "work");
  for (const u of [BOT_LOGIN, HUMAN_LOGIN, STRANGER_LOGIN]) a.addCollaborator(AGENT_LOGIN, "work", u, "write");
  a.createLabel(AGENT_LOGIN, "work", { name: DEFAULT_SESSION_LABEL });
  const issue = a.createIssue(AGENT_LOGIN, "work", { title: DEFAULT_SESSION_TITLE, body: "", labels: [DEFAULT_SESSION_LABEL] }).number;
  const data = generateDataset(n, Date.now());
  a.bulkComments(
    AGENT_LOGIN,
    "work",
    issue,
    data.comments.map((c) => ({ login: c.login, body: c.body, createdAt: c.at })),
  );
  const dir = mkdtempSync(join(tmpdir(), "checkpost-bench-store-"));
  const logger = createLogger({ level: "silent", pretty: false, destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  const config = {
    ...defaultBotConfig({ url: forge.url, token }, [{ owner: AGENT_LOGIN, repo: "work" }]),
    trustedAuthors: [AGENT_LOGIN],
    insecure: true,
    port: 0,
    pollIntervalMs: 0,
    reconcileIntervalMs: 0,
    livenessIntervalMs: 0,
    dashboardIntervalMs: 60_000,
    rolloverAt: 0,
    healthRetentionMs: 0,
    storeFile: join(dir, "projection.sqlite"),
  };
  const run = async () => {
    const urls: URL[] = [];
    const fetchRec: typeof fetch = (input, init) => {
      urls.push(new URL(input instanceof Request ? input.url : String(input)));
      return fetch(input, init);
    };
    const t = performance.now();
    const bot = await createBot(config, { logger, fetch: fetchRec });
    const ms = performance.now() - t;
    const comments = bot.trackers()[0]?.projection.snapshot().comments ?? 0;
    const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    await bot.stop();
    const reads = urls.filter((u) => /\/comments$/.test(u.pathname));
    return {
      ms: Math.round(ms),
      comments,
      commentReads: reads.length,
      sinceReads: reads.filter((u) => u.searchParams.has("since") && !u.searchParams.has("before")).length,
      heapMiB: Math.round(heapMiB),
    };
  };
  const first = await run();
  const restart = await run();
  await forge.close();
  rmSync(dir, { recursive: true, force: true });
  return { n, first, restart };
}

const started = Date.now();
const sims = [
  simulate({ label: "no rollover, no compaction", rolloverAt: 0, retentionMs: 0 }),
  simulate({ label: "rollover at 1000 + compaction 24h (defaults)", rolloverAt: 1000, retentionMs: 24 * 3600_000 }),
];
const restarts = [];
for (const n of sizes) restarts.push(await restartAt(n));
const result = { at: new Date().toISOString(), hours, sims, restarts, wallSeconds: Math.round((Date.now() - started) / 1000) };
const out = arg("--out");
if (out) writeFileSync(out, JSON.stringify(result, null, 2));
for (const s of sims)
  process.stdout.write(
    `${s.label}: written ${s.written}, live max ${s.maxLive}, live at end ${s.finalLive}, rollovers ${s.rollovers}, compacted ${s.compacted}, resume checks ${s.resumeChecks}: checkpost wrong ${s.checkpostWrong}, seed wrong ${s.seedWrong}\n` +
      `  live size by 12 h: ${s.sizes
        .filter((x) => x.hour % 12 === 0)
        .map((x) => `${x.hour}h=${x.comments}`)
        .join(" ")}\n`,
  );
for (const r of restarts)
  process.stdout.write(
    `N=${r.n}: first start ${r.first.ms} ms (${r.first.commentReads} comment reads), restart from store ${r.restart.ms} ms (${r.restart.commentReads} comment reads, ${r.restart.sinceReads} with since); heap ${r.first.heapMiB}/${r.restart.heapMiB} MiB (bot+forge in one process)\n`,
  );
