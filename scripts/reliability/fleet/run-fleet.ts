/**
 * The mixed-fleet differential suite (issue 18, item 7). Each schedule is a fresh world (world.ts)
 * driven by a seeded step engine: the seed's own Python agents, CLI agents (one process per
 * command, each machine with its own cache folder and account), library agents (SessionStore in
 * this process), a person's controls by slash command and by checkbox tick, take-overs, the forge's
 * clock moving forward, bot kills and restarts; the bot rolls the issue over at a small threshold
 * and compacts health signals. After every step, once the bot has caught up (or a bounded wait
 * ran out), every reader is compared with the model (model.ts) for every agent.
 *
 * Deterministic per seed: every choice comes from the schedule's PRNG and the model, never from a
 * reader's answer, so a failing schedule replays with FLEET_SEED and FLEET_ONLY.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { mulberry32 } from "../../../src/embedded-forge/prng.ts";
import type { IssueHost } from "../../../src/ports/issue-host.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, parseComment } from "../../../src/protocol/index.ts";
import type { PhaseMap } from "../../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../../src/session-client/index.ts";
import { startPostgres } from "../../../test/helpers/start-postgres.ts";
import type { PostgresServer } from "../../../test/helpers/start-postgres.ts";
import { carriedFrom } from "../../../src/chain/carried-body.ts";
import { buildResumeIndex } from "../../../src/dashboard/index.ts";
import type { ResumeIndex } from "../../../src/dashboard/index.ts";
import { createProjection } from "../../../src/projection/index.ts";
import { toCommentRecord } from "../../../src/session-client/to-comment-record.ts";
import { continuedFrom } from "../../../src/chain/chain-links.ts";
import { FleetModel } from "./model.ts";
import { SeedProcess } from "./seed-process.ts";
import type { SaveFact, TruthAnswer } from "./model.ts";
import { apiResume, cliResume, currentIndex, dashboard, libResume, nOf, seedResume, statusJson } from "./readers.ts";
import type { AgentRef, CliEnv, ReaderAnswer } from "./readers.ts";
import { AGENT_LOGINS, BOT_LOGIN, REPO, buildBundles, startWorld } from "./world.ts";
import type { BotMode, FleetBundles, FleetWorld } from "./world.ts";

const HOUR = 3_600_000;
/** Readers trust the agents' accounts and the bot (whose carried copies they resume from after a rollover). */
const TRUSTED = [...AGENT_LOGINS, BOT_LOGIN];

export const READERS = ["api", "cli", "lib", "status", "dashboard"] as const;
export const KINDS = ["checkpoint", "directive", "resume_point", "error"] as const;
export type ReaderName = (typeof READERS)[number];
export type Kind = (typeof KINDS)[number];
/** The seed's readers' documented errors, and what else can make them differ (named, never failing the run). */
export const SEED_CAUSES = ["24h_window", "clock_string_sort", "ignores_fence_and_controls", "error", "unexplained"] as const;
export type SeedCause = (typeof SEED_CAUSES)[number];

export interface FleetOptions {
  schedules: number;
  steps: number;
  seed: number;
  /** Run only this schedule index (reproduce one). */
  only?: number;
  /** Longest wait for the bot to catch up after a step, ms. */
  settleMs?: number;
  /** Leave out the seed's Python reader (python3 is still needed for the seed's agents). */
  seedReader?: boolean;
  /** Schedule i runs in the i-th of the four bot modes, in turn (a small run then covers each); default: seeded. */
  cycleModes?: boolean;
  /** Where replica schedules get a fresh database (default: a PostgreSQL started for the run). */
  createDatabase?: (name: string) => Promise<string>;
  log?: (line: string) => void;
  /** Write each bot process's log (level info) into this folder, one file per schedule and bot. */
  botLogDir?: string;
}

export interface Disagreement {
  schedule: number;
  step: number;
  action: string;
  reader: string;
  agent: string;
  kinds: Kind[];
  want: TruthAnswer & { resumePoint: string };
  got: ReaderAnswer;
}

export interface FleetFigures {
  schedules: number;
  steps: number;
  comparisons: number;
  disagreements: number;
  byReaderKind: Record<string, number>;
  seedComparisons: number;
  seedCauses: Record<SeedCause, number>;
  /** What the schedules did. */
  actions: Record<string, number>;
  modes: Record<string, number>;
  settleTimeouts: number;
  /** Disagreements per schedule index (only schedules with some): what to replay with FLEET_ONLY. */
  bySchedule: Record<number, number>;
  rollovers: number;
  /** Replica schedules skipped because PostgreSQL could not start (then said why). */
  skippedReplicaSchedules: number;
  /**
   * Take-overs right after a resume that wrote nothing that did not get a higher epoch than it (issue
   * 28.5: the two held the same epoch, and the take-over fenced nothing). Must be 0.
   */
  takeOverTies: number;
}

interface AgentSpec extends AgentRef {
  name: string;
  kind: "seed" | "cli" | "lib";
  login: string;
}

const ROSTER: AgentSpec[] = [
  { name: "seed-1", kind: "seed", agent: "implementation-worker", session: "seed-s1", login: "seed-agent", map: IMPLEMENTATION_WORKER_PHASE_MAP },
  { name: "seed-2", kind: "seed", agent: "pr-self-reviewer", session: "seed-s2", login: "seed-agent", map: null },
  { name: "cli-1", kind: "cli", agent: "implementation-worker", session: "cli-s1", login: "cli-a", map: IMPLEMENTATION_WORKER_PHASE_MAP },
  { name: "cli-2", kind: "cli", agent: "deploy-runner", session: "cli-s2", login: "cli-b", map: null },
  { name: "lib-1", kind: "lib", agent: "implementation-worker", session: "lib-s1", login: "lib-agent", map: IMPLEMENTATION_WORKER_PHASE_MAP },
  { name: "lib-2", kind: "lib", agent: "implementation-orchestrator", session: "lib-s2", login: "lib-agent", map: null },
];

type Worker = { kind: "cli"; cacheDir: string } | { kind: "lib"; store: SessionStore; skewMs: number };

interface AgentState {
  spec: AgentSpec;
  worker: Worker | null;
  /** Superseded workers that may still write (zombies). */
  old: Worker[];
  /** Writer's Time: and forge creation time of each save, by n (the seed reader's causes). */
}

/** The truth's resume point: the agent's map (unknown phase: "start", the seed's rule), its own phase without a map. */
function truthResumePoint(t: TruthAnswer, map: Readonly<PhaseMap> | null): string {
  if (t.phase === null) return "start";
  if (!map) return t.phase;
  return Object.hasOwn(map, t.phase) ? (map[t.phase] as string) : "start";
}

function emptyFigures(): FleetFigures {
  const byReaderKind: Record<string, number> = {};
  for (const r of READERS) for (const k of KINDS) byReaderKind[`${r}_${k}`] = 0;
  return {
    schedules: 0,
    steps: 0,
    comparisons: 0,
    disagreements: 0,
    byReaderKind,
    seedComparisons: 0,
    seedCauses: Object.fromEntries(SEED_CAUSES.map((c) => [c, 0])) as Record<SeedCause, number>,
    actions: {},
    modes: {},
    settleTimeouts: 0,
    bySchedule: {},
    rollovers: 0,
    skippedReplicaSchedules: 0,
    takeOverTies: 0,
  };
}

/** A 32-bit seed per schedule, from the run's seed and the schedule index (so FLEET_ONLY replays one). */
export function scheduleSeed(seed: number, index: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (index + 0x7f4a7c15), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export async function runFleet(o: FleetOptions): Promise<{ figures: FleetFigures; examples: Disagreement[]; elapsedMs: number }> {
  const started = Date.now();
  const log = (l: string) => o.log?.(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${l}`);
  const figures = emptyFigures();
  const examples: Disagreement[] = [];
  const bundles = await buildBundles(join(process.cwd(), ".data", "fleet"));
  let pg: PostgresServer | null = null;
  let pgError: string | null = null;
  try {
    const indices = o.only !== undefined ? [o.only] : Array.from({ length: o.schedules }, (_, i) => i);
    for (const i of indices) {
      const rand = mulberry32(scheduleSeed(o.seed, i));
      const mode: BotMode = { ingest: rand() < 0.5 ? "webhook" : "polling", replicas: rand() < 0.3 ? 2 : 1 };
      if (o.cycleModes) Object.assign(mode, { ingest: i % 2 === 0 ? "webhook" : "polling", replicas: Math.floor(i / 2) % 2 === 0 ? 1 : 2 });
      // Above what a rollover carries (each agent's newest checkpoint and health), so a successor does not roll over at once.
      const rolloverAt = 13 + Math.floor(rand() * 4);
      let databaseUrl: string | undefined;
      if (mode.replicas === 2 && o.createDatabase) databaseUrl = await o.createDatabase(`fleet_${o.seed}_${i}`);
      else if (mode.replicas === 2) {
        if (!pg && !pgError)
          pg = await startPostgres().catch((e: unknown) => {
            pgError = e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e);
            log(`PostgreSQL did not start, replica schedules run with one bot: ${pgError}`);
            return null;
          });
        if (pg) databaseUrl = await pg.createDatabase(`fleet_${o.seed}_${i}`);
        else {
          mode.replicas = 1;
          figures.skippedReplicaSchedules++;
        }
      }
      const modeName = `${mode.ingest}_${mode.replicas === 2 ? "replicas" : "single"}`;
      figures.modes[modeName] = (figures.modes[modeName] ?? 0) + 1;
      log(`schedule ${i}: ${modeName}, rollover at ${rolloverAt}`);
      const tw = Date.now();
      const logPrefix = o.botLogDir ? join(o.botLogDir, `seed-${o.seed}-schedule-${i}`) : undefined;
      const world = await startWorld({ bundles, mode, rolloverAt, clockOffsetMs: -30 * HOUR, ...(databaseUrl ? { databaseUrl } : {}), ...(logPrefix ? { logPrefix } : {}) });
      log(`schedule ${i}: world up in ${Date.now() - tw} ms`);
      try {
        await runSchedule({ o, i, rand, world, bundles, figures, examples, log, rolloverAt });
      } finally {
        await world.close();
      }
      figures.schedules++;
    }
  } finally {
    await pg?.stop();
  }
  return { figures, examples, elapsedMs: Date.now() - started };
}

interface ScheduleCtx {
  o: FleetOptions;
  i: number;
  rand: () => number;
  world: FleetWorld;
  bundles: FleetBundles;
  figures: FleetFigures;
  examples: Disagreement[];
  log: (l: string) => void;
  rolloverAt: number;
}

async function runSchedule(c: ScheduleCtx): Promise<void> {
  const { world, rand, figures } = c;
  const model = new FleetModel();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const obsApi = world.api("observer");
  const tmp = (p: string) => mkdtempSync(join(world.tmp, `${p}-`));
  const cliEnv = (login: string, cacheDir: string): CliEnv => ({ url: world.forge.url, token: world.tokens[login] as string, cacheDir, trusted: TRUSTED });
  const readerCli = cliEnv("observer", tmp("reader-cli"));
  const readerStatus = cliEnv("observer", tmp("reader-status"));
  const readerLib = new SessionStore({ api: obsApi, repo: REPO, trustedAuthors: TRUSTED });
  const bodies = new Map<number, number | null>();
  /** Each save's writer Time: and forge creation time, by n (to name the seed reader's errors). */
  const saveTimes = new Map<number, { time: string; forgeMs: number }>();
  let n = 0;
  const count = (a: string) => (figures.actions[a] = (figures.actions[a] ?? 0) + 1);

  const runCliProcess = async (login: string, cacheDir: string, args: string[]): Promise<Record<string, unknown>> => {
    const e = cliEnv(login, cacheDir);
    const { stdout } = await promisify(execFile)(process.execPath, [c.bundles.cliScript, ...args], {
      env: {
        PATH: process.env.PATH,
        FORGEJO_URL: e.url,
        FORGEJO_TOKEN: e.token,
        FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}`,
        CHECKPOST_TRUSTED_AUTHORS: TRUSTED.join(","),
        CHECKPOST_CACHE_DIR: cacheDir,
        LOG_LEVEL: "silent",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
  };

  // The seed's Python agents (one long-running python3 process, their account) and the seed's reader (the observer's).
  const seedAgent = new SeedProcess({ url: world.forge.url, token: world.tokens["seed-agent"] as string });
  const seedReader = new SeedProcess({ url: world.forge.url, token: world.tokens["observer"] as string });
  world.onClose(() => {
    seedAgent.close();
    seedReader.close();
  });
  const agents: AgentState[] = ROSTER.map((spec) => ({ spec, worker: null, old: [] }));

  /** A new worker of a CLI or library agent resumes (taking over with the next epoch); with takeOver the fence is written at once. */
  const startWorker = async (a: AgentState, takeOver: boolean): Promise<number> => {
    const s = a.spec;
    let out: { epoch: number; state: unknown; phase: string; takeoverCommentId?: number };
    let w: Worker;
    if (s.kind === "cli") {
      w = { kind: "cli", cacheDir: tmp(`${s.name}-machine`) };
      const r = await runCliProcess(s.login, w.cacheDir, ["resume", "--agent", s.agent, "--session", s.session, ...(takeOver ? ["--take-over"] : [])]);
      out = { epoch: Number(r["epoch"]), state: r["state"], phase: String(r["phase"]), ...(typeof r["takeover_comment_id"] === "number" ? { takeoverCommentId: r["takeover_comment_id"] } : {}) };
    } else {
      // A later worker's machine clock runs behind (a clock the seed's string sort trusts).
      const skewMs = a.worker || a.old.length ? -Math.floor(rand() * 10 * 60_000) : 0;
      const store = new SessionStore({ api: world.api(s.login), repo: REPO, trustedAuthors: TRUSTED, now: () => new Date(Date.now() + skewMs) });
      w = { kind: "lib", store, skewMs };
      const r = await store.resume(s.agent, s.session, s.map ?? {}, { takeOver });
      out = { epoch: r.epoch, state: r.state, phase: r.phase, ...(r.takeover_comment_id !== undefined ? { takeoverCommentId: r.takeover_comment_id } : {}) };
    }
    if (out.takeoverCommentId !== undefined) {
      // The fence written at resume: the resumed phase and state again, under the new epoch. The model believes what was written.
      const resumedN = nOf(out.state);
      if (resumedN !== null) model.save(s.agent, s.session, { n: resumedN, phase: out.phase, epoch: out.epoch, commentId: out.takeoverCommentId });
    }
    if (a.worker) a.old.push(a.worker);
    a.worker = w;
    return out.epoch;
  };

  const phaseFor = (s: AgentSpec): string => {
    if (s.map) return rand() < 0.1 ? "custom_step" : pick(Object.keys(s.map));
    return `step_${1 + Math.floor(rand() * 9)}`;
  };

  /** One save by a worker (the current one, or a superseded one: a zombie). Returns whether the model believes it. */
  const save = async (a: AgentState, w: Worker | null): Promise<boolean> => {
    const s = a.spec;
    const phase = phaseFor(s);
    const num = ++n;
    const data = { n: num, note: pick(["ok", "retry", "done", "ü", "x y"]) };
    const forgeMs = Date.now() + world.clockOffsetMs;
    let fact: SaveFact;
    /** The issue the save's comment landed on (null: not known). */
    let landed: number | null = null;
    if (s.kind === "seed") {
      const r = (await seedAgent.request({ cmd: "save", agent: s.agent, session: s.session, phase, data })) as Record<string, unknown>;
      // save_checkpoint swallows its errors and prints a warning: only a printed save happened.
      if (r["saved"] !== true) throw new Error(`the seed's save_state did not save: ${JSON.stringify(r)}`);
      fact = { n: num, phase, epoch: 0, ...(typeof r["comment_id"] === "number" ? { commentId: r["comment_id"] } : {}) };
      if (typeof r["issue"] === "number") landed = r["issue"];
      saveTimes.set(num, { time: new Date().toISOString().replace(/\.\d+Z$/, ""), forgeMs });
    } else if (w?.kind === "cli") {
      const r = await runCliProcess(s.login, w.cacheDir, ["save", "--agent", s.agent, "--session", s.session, "--phase", phase, "--data", JSON.stringify(data)]);
      fact = { n: num, phase, epoch: typeof r["epoch"] === "number" ? r["epoch"] : 0, commentId: Number(r["comment_id"]), ...(typeof r["id"] === "string" ? { id: r["id"] } : {}) };
      if (typeof r["issue"] === "number") landed = r["issue"];
      saveTimes.set(num, { time: String(r["timestamp"]), forgeMs });
    } else if (w?.kind === "lib") {
      const r = await w.store.save({ agent: s.agent, session: s.session, phase, data });
      // A plain library save checks the chain's head once a minute (docs/chain.md): it may reach a closed issue.
      landed = r.issue;
      fact = { n: num, phase, epoch: r.checkpoint.epoch ?? 0, commentId: r.comment_id, ...(r.checkpoint.id ? { id: r.checkpoint.id } : {}) };
      saveTimes.set(num, { time: r.checkpoint.timestamp ?? "", forgeMs });
    } else throw new Error(`${s.name} has no worker`);
    // A believed save that did not land on the open head (a seed agent finds the issue by title and label, a
    // library save checks the head once a minute; either can reach an issue the bot is closing) must be carried
    // into the head: settle waits for that copy (the step's newest save of the agent only, see settle).
    const believed = model.save(s.agent, s.session, fact);
    if (believed) saves.push({ agent: s.agent, session: s.session, n: num, issue: landed });
    return believed;
  };

  /** The open session issue a person looks at (the newest open one). */
  const head = async (api: IssueHost = obsApi): Promise<number> => {
    const issues = await api.findSessionIssues(REPO, { state: "open", label: DEFAULT_SESSION_LABEL });
    const open = issues.filter((x) => x.title.includes(DEFAULT_SESSION_TITLE)).map((x) => x.number);
    return Math.max(...open);
  };

  const slash = async (login: string, line: string) => world.api(login).postRecord(REPO, await head(), line);

  const checkboxKey = (s: AgentSpec) => Buffer.from(JSON.stringify([s.agent, s.session]), "utf8").toString("base64url");
  /** Tick (or untick) a control box on the open issue's dashboard, as a person editing the body. False when the box is not there. */
  const tick = async (s: AgentSpec, action: string, checked: boolean, rewindN?: number): Promise<boolean> => {
    const api = world.api("alice");
    const issue = await head();
    const body = (await api.readIssue(REPO, issue)).body ?? "";
    const lines = body.split("\n");
    const prefix = `<!-- checkpost:control ${action} ${checkboxKey(s)}`;
    let at = -1;
    for (let j = 0; j < lines.length && at < 0; j++) {
      const l = lines[j] as string;
      const m = /^(\s*[-*] \[)([ xX])(\] )(<!-- checkpost:control \S+ \S+)(?: (\d+))? -->/.exec(l);
      if (!m || !l.includes(prefix)) continue;
      if (action === "rewind") {
        const id = Number(m[5]);
        let bn = bodies.get(id);
        if (bn === undefined) {
          const p = parseComment((await obsApi.readRecord(REPO, id).catch(() => ({ body: "" }))).body);
          bn = p.kind === "checkpoint" ? nOf(p.checkpoint.data) : null;
          bodies.set(id, bn);
        }
        if (bn !== rewindN) continue;
      }
      at = j;
    }
    if (at < 0) return false;
    lines[at] = (lines[at] as string).replace(/\[([ xX])\]/, checked ? "[x]" : "[ ]");
    await api.writeIssueBody(REPO, issue, lines.join("\n"));
    return true;
  };

  /** The [CONTROL] the bot must record for the step's control (settle waits for it): none when the step gave none. */
  let expected: ExpectedControl | null = null;
  /** The step's believed saves, in order, with the issue each landed on: settle waits until the head holds each agent's newest. */
  const saves: StepSave[] = [];
  /** A person's control, by checkbox or slash command (a box not on the dashboard: the command instead, counted). */
  const control = async (s: AgentSpec, action: "pause" | "unpause" | "rewind" | "release", target?: SaveFact): Promise<boolean> => {
    const before = Math.max(0, ...(await obsApi.listCommentsSince(REPO, await head())).map((x) => x.id));
    expected = { agent: s.agent, session: s.session, action, afterId: before };
    const viaBox = rand() < 0.5;
    if (viaBox) {
      const ok = action === "unpause" ? await tick(s, "pause", false) : action === "rewind" ? await tick(s, "rewind", true, target?.n) : await tick(s, action, true);
      if (ok) {
        count(`control_box_${action}`);
        return true;
      }
      count("control_box_missing");
    }
    const ref = target ? (target.id ?? (target.commentId !== undefined ? String(target.commentId) : null)) : null;
    if (action === "rewind" && ref === null) {
      expected = null;
      return false;
    }
    const verb = action === "unpause" ? "resume" : action;
    await slash("alice", `/checkpost ${verb} ${s.agent} ${s.session}${action === "rewind" ? ` ${ref}` : ""}`);
    count(`control_slash_${action}`);
    return true;
  };

  // Every CLI and library agent starts with a worker that resumes (taking epoch 1).
  const tw = Date.now();
  await Promise.all(agents.filter((a) => a.spec.kind !== "seed").map((a) => startWorker(a, false)));
  c.log(`schedule ${c.i}: workers up in ${Date.now() - tw} ms`);

  for (let step = 1; step <= c.o.steps; step++) {
    expected = null;
    const r = rand();
    const a = pick(agents);
    const s = a.spec;
    const hasCheckpoint = model.current(s.agent, s.session) !== null;
    let action = "save";
    if (r < 0.45) {
      // A burst: an agent at work checkpoints a few steps in a row.
      const burst = 1 + Math.floor(rand() * 4);
      for (let b = 0; b < burst; b++) await save(a, a.worker);
    } else if (r < 0.52) {
      action = "health";
      const metrics = { step, queue: Math.floor(rand() * 5) };
      if (a.worker?.kind === "lib") await a.worker.store.health({ agent: s.agent, session: s.session, metrics });
      else if (a.worker?.kind === "cli") await runCliProcess(s.login, a.worker.cacheDir, ["health", "--agent", s.agent, "--session", s.session, "--metrics", JSON.stringify(metrics)]);
      else
        await world
          .api(s.login)
          .postRecord(
            REPO,
            await head(world.api(s.login)),
            `[HEALTH] ${s.agent}\nSession: ${s.session}\nTime: ${new Date().toISOString().slice(0, 19)}Z\nStatus: Active\n\nMetrics:\n\`\`\`json\n${JSON.stringify(metrics, null, 2)}\n\`\`\`\n`,
          );
    } else if (r < 0.58 && a.old.length) {
      action = "zombie_save";
      await save(a, pick(a.old));
    } else if (r < 0.66 && s.kind !== "seed") {
      action = "take_over";
      await startWorker(a, rand() < 0.5);
    } else if (r < 0.72 && hasCheckpoint) {
      action = model.paused(s.agent, s.session) ? "unpause" : "pause";
      if (await control(s, action as "pause" | "unpause")) (action === "pause" ? model.pause : model.unpause).call(model, s.agent, s.session);
    } else if (r < 0.78 && hasCheckpoint && s.kind !== "seed") {
      const cur = model.current(s.agent, s.session) as SaveFact;
      const targets = model.rewindTargets(s.agent, s.session).filter((t) => t.n < cur.n && t.id !== undefined);
      if (targets.length) {
        action = "rewind";
        const t = pick(targets);
        if (await control(s, "rewind", t)) model.rewind(s.agent, s.session, t);
      } else {
        action = "release";
        if (await control(s, "release")) model.release(s.agent, s.session);
      }
    } else if (r < 0.8 && hasCheckpoint) {
      // A commenter who may not write: refused, so nothing changes.
      action = "mallory_control";
      await slash("mallory", `/checkpost pause ${s.agent} ${s.session}`);
    } else if (r < 0.83) {
      action = "time_passes";
      world.clockOffsetMs = Math.min(0, world.clockOffsetMs + 13 * HOUR);
    } else if (r < 0.87) {
      action = world.mode.replicas === 2 ? "replica_kill" : "bot_restart";
      const victim = pick(world.live());
      if (victim) world.kill(victim);
      await world.startBot();
    } else if (r < 0.91 && hasCheckpoint) {
      // Issue 28.4: every bot down; a person ticks (or unticks) Pause meanwhile (its delivery fails and is
      // never sent again), an agent may save; then the bots start again and must find the tick.
      action = "down_tick";
      for (const b of world.live()) world.kill(b);
      const pausing = !model.paused(s.agent, s.session);
      const before = Math.max(0, ...(await obsApi.listCommentsSince(REPO, await head())).map((x) => x.id));
      if (await tick(s, "pause", pausing)) {
        expected = { agent: s.agent, session: s.session, action: pausing ? "pause" : "unpause", afterId: before };
        (pausing ? model.pause : model.unpause).call(model, s.agent, s.session);
      } else count("down_tick_missing");
      const other = pick(agents);
      if (rand() < 0.5 && other.spec.kind !== "seed" && other.worker) await save(other, other.worker);
      for (let b = 0; b < world.mode.replicas; b++) await world.startBot();
    } else if (r < 0.94 && s.kind !== "seed") {
      // Issue 28.5: a resume that writes nothing, then at once a take-over; the first worker then saves.
      action = "take_over_after_plain_resume";
      const plain = await startWorker(a, false);
      const first = a.worker;
      const took = await startWorker(a, true);
      if (took <= plain) figures.takeOverTies++;
      if (first) await save(a, first);
    } else {
      await save(a, a.worker);
    }
    count(action);
    figures.steps++;
    const t0 = Date.now();
    const late = await settle(world, c.o.settleMs ?? 4000, expected, saves, c.rolloverAt);
    expected = null;
    saves.length = 0;
    if (late !== null) {
      figures.settleTimeouts++;
      c.log(`schedule ${c.i} step ${step}: compared before the bot caught up: ${late}`);
    }
    const t1 = Date.now();
    await compareAll(c, { step, action, model, agents, readerCli, readerStatus, readerLib, bodies, saveTimes, headIssue: await head(), seedReader });
    c.log(`schedule ${c.i} step ${step} ${action} ${a.spec.name}: settled in ${t1 - t0} ms, compared in ${Date.now() - t1} ms`);
  }
  // Rollovers: session issues beyond the first.
  const issues = await obsApi.findSessionIssues(REPO, { state: "all", label: DEFAULT_SESSION_LABEL });
  figures.rollovers += Math.max(0, issues.length - 1);
}

/**
 * Wait until the bot has caught up: webhook deliveries done, every live bot's watermark at the
 * newest comment of each issue it watches, the open issue's resume index current (at its newest
 * comment, or saying what its comments say: sameIndexContent; none needed on an issue with no
 * comment), and nothing new for a moment (the bot's own comments: controls, carried copies). Null
 * when caught up, else why the wait ran out (the readers are compared anyway).
 */
/** A person's control the bot must record as its own [CONTROL] (a fresh one, not a copy carried at a rollover). */
interface ExpectedControl {
  agent: string;
  session: string;
  action: "pause" | "unpause" | "rewind" | "release";
  /** The newest comment id before the control was given (ids are global to the forge). */
  afterId: number;
}

/** A believed save of the step and the issue its comment landed on (null: not known). */
interface StepSave {
  agent: string;
  session: string;
  n: number;
  issue: number | null;
}

async function settle(world: FleetWorld, maxMs: number, expected: ExpectedControl | null = null, saves: readonly StepSave[] = [], rolloverAt = 0): Promise<string | null> {
  const api = world.api("observer");
  const deadline = Date.now() + maxMs;
  let last = "";
  let stableSince = Date.now();
  for (;;) {
    await world.forge.admin.idle();
    await world.dispatcher.idle();
    // Every issue with the session's title, labelled or not: the bot opens a successor without the label and
    // labels it after the carry, so an open one without it (or two open ones) is a rollover under way.
    const titled = await api.findSessionIssues(REPO, { state: "all", title: DEFAULT_SESSION_TITLE });
    const issues = titled.filter((x) => x.labels.some((l) => l.name === DEFAULT_SESSION_LABEL));
    const openTitled = titled.filter((x) => x.state === "open").map((x) => x.number);
    const maxId = new Map<number, number>();
    const openHead = Math.max(...issues.filter((x) => x.state === "open").map((x) => x.number));
    let rolling = openTitled.length > 1 ? `a rollover is under way (open: ${openTitled.map((x) => `#${x}`).join(", ")})` : "";
    const headBody = issues.find((x) => x.number === openHead)?.body ?? "";
    let indexWatermark = -1;
    /** Whether the head's index says what the bot would write from the head's comments now (see indexCurrent). */
    let indexCurrent = true;
    let recorded = expected === null;
    // Each agent's newest save of the step, when it landed elsewhere than the open head: the head must hold its copy.
    const newest = new Map<string, StepSave>();
    for (const x of saves) newest.set(JSON.stringify([x.agent, x.session]), x);
    const uncarried = new Map([...newest.values()].filter((x) => x.issue !== openHead).map((x) => [x.n, x]));
    // The bot's own index comments are not events to wait for (the index never covers itself).
    for (const is of issues) {
      const ci = await currentIndex(api, is.number, is.body ?? "");
      maxId.set(is.number, ci.maxId);
      if (is.number === openHead) {
        indexWatermark = ci.index?.watermark ?? -1;
        indexCurrent = ci.maxId === 0 || (ci.index !== null && (ci.index.watermark >= ci.maxId || sameIndexContent(ci.index, indexFromComments(ci.comments))));
      }
      // A rollover the bot has yet to start: the head's comments past the threshold, not counting the copies
      // carried in from its predecessor (as the bot counts, src/bot/upkeep/issue-rollover.ts).
      if (is.number === openHead && rolloverAt > 0) {
        const from = continuedFrom(is.body);
        const copies = from === null ? 0 : ci.comments.filter((x) => x.author === BOT_LOGIN && carriedFrom(x.body, from) !== null).length;
        if (ci.comments.length - copies >= rolloverAt) rolling ||= `a rollover of #${openHead} is due (${ci.comments.length - copies} comments, threshold ${rolloverAt})`;
      }
      if (is.number === openHead && uncarried.size)
        for (const x of ci.comments) {
          const p = x.author === BOT_LOGIN ? parseComment(x.body) : null;
          if (p?.kind === "checkpoint") uncarried.delete(nOf(p.checkpoint.data) ?? -1);
        }
      if (expected && !recorded)
        recorded = ci.comments.some((x) => {
          if (x.id <= expected.afterId || x.author !== BOT_LOGIN || x.body.includes("carried over by checkpost")) return false;
          const p = parseComment(x.body);
          return p.kind === "control" && p.control.agent === expected.agent && p.control.session === expected.session && p.control.action === expected.action;
        });
    }
    let caughtUp = true;
    let why = "";
    for (const b of world.live()) {
      try {
        const r = await fetch(`${b.url}/api/sessions`, { headers: { authorization: "Bearer fleet-api-token-0123456789abcdef" }, signal: AbortSignal.timeout(5000) });
        const list = (await r.json()) as { issue: number; watermark: number }[];
        if (!Array.isArray(list) || !list.some((x) => x.issue === openHead)) {
          caughtUp = false;
          why = `${b.id} does not watch the open issue #${openHead}`;
        } else
          for (const x of list)
            if (x.watermark < (maxId.get(x.issue) ?? 0)) {
              caughtUp = false;
              why = `${b.id} read #${x.issue} to comment ${x.watermark}, the newest is ${maxId.get(x.issue)}`;
            }
      } catch (e) {
        caughtUp = false;
        why = `${b.id}: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    if (rolling) {
      caughtUp = false;
      why = rolling;
    }
    if (uncarried.size) {
      caughtUp = false;
      why = `a save that landed on another issue is not carried into the head #${openHead} yet (${[...uncarried.values()].map((x) => `n=${x.n} of ${x.agent}/${x.session} on #${x.issue ?? "?"}`).join(", ")})`;
    }
    if (!recorded && expected) {
      caughtUp = false;
      why = `the bot has not recorded the ${expected.action} of ${expected.agent}/${expected.session} as a [CONTROL] yet`;
    }
    if (!indexCurrent) {
      caughtUp = false;
      why = `the resume index on #${openHead} (at comment ${indexWatermark}, the newest is ${maxId.get(openHead)}) is not what its comments say yet`;
    }
    const fingerprint = JSON.stringify([[...maxId], headBody.length]);
    if (fingerprint !== last) {
      last = fingerprint;
      stableSince = Date.now();
    }
    if (caughtUp && Date.now() - stableSince >= 150) return null;
    if (Date.now() > deadline) return why || "comments still arriving";
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** The bot's trust policy (src/bot/create-bot.ts: its own login and CHECKPOST_TRUSTED_AUTHORS). */
const BOT_POLICY = { trustedAuthors: new Set([BOT_LOGIN, ...AGENT_LOGINS].map((x) => x.toLowerCase())) };

/** The resume index the bot would build from these comments of one issue (its fold of them). */
function indexFromComments(comments: Parameters<typeof toCommentRecord>[0][]): ResumeIndex {
  const p = createProjection(BOT_POLICY);
  for (const c of comments) p.apply({ type: "upsert", comment: toCommentRecord(c) });
  return buildResumeIndex(p.snapshot());
}

/**
 * Whether two indexes say the same, bar the watermark (docs/dashboard.md "Where the resume index lives": the
 * bot does not write again an index that differs from the last one only in its watermark, so after a comment
 * that changes no entry, a mallory's refused command or the bot's reply, its watermark stays behind for good).
 * Keys and entries in a fixed order: the one read back went through the reader's schema.
 */
function sameIndexContent(a: Readonly<ResumeIndex>, b: Readonly<ResumeIndex>): boolean {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
              .map(([k, x]) => [k, canon(x)]),
          )
        : v;
  const content = (x: Readonly<ResumeIndex>) => {
    const { watermark: _w, watermarkUpdatedAt: _u, sig: _s, ...rest } = x;
    const entries = [...rest.entries].sort((p, q) => (JSON.stringify([p.agent, p.session]) < JSON.stringify([q.agent, q.session]) ? -1 : 1));
    return JSON.stringify(canon({ ...rest, entries }));
  };
  return content(a) === content(b);
}

interface CompareInput {
  step: number;
  action: string;
  model: FleetModel;
  agents: AgentState[];
  readerCli: CliEnv;
  readerStatus: CliEnv;
  readerLib: SessionStore;
  bodies: Map<number, number | null>;
  saveTimes: Map<number, { time: string; forgeMs: number }>;
  headIssue: number;
  seedReader: SeedProcess;
}

async function compareAll(c: ScheduleCtx, x: CompareInput): Promise<void> {
  const { figures } = c;
  const refs = x.agents.map((a) => a.spec);
  // Readers only read: all at once (each CLI reader has its own cache folder; the library handle is shared, as a process's would be).
  const t0 = Date.now();
  const seedAnswers = c.o.seedReader === false ? null : seedResume(x.seedReader, refs);
  const answers: { reader: ReaderName; got: ReaderAnswer[] }[] = await Promise.all([
    ...c.world.live().map(async (b) => ({ reader: "api" as const, got: await Promise.all(refs.map((r) => apiResume(b.url, r))) })),
    (async () => ({ reader: "cli" as const, got: await Promise.all(refs.map((r) => cliResume(x.readerCli, r))) }))(),
    (async () => ({ reader: "lib" as const, got: await Promise.all(refs.map((r) => libResume(x.readerLib, r))) }))(),
    (async () => ({ reader: "status" as const, got: await statusJson(x.readerStatus, refs) }))(),
    (async () => ({ reader: "dashboard" as const, got: await dashboard(c.world.api("observer"), x.headIssue, refs, x.bodies) }))(),
  ]);
  if (process.env["FLEET_PROFILE"] === "1") c.log(`readers: ${Date.now() - t0} ms`);
  for (const { reader, got } of answers) {
    refs.forEach((spec, j) => {
      const t = x.model.answer(spec.agent, spec.session);
      const want = { ...t, resumePoint: truthResumePoint(t, spec.map) };
      const g = got[j] as ReaderAnswer;
      const kinds: Kind[] = [];
      if (g.error !== undefined) kinds.push("error");
      else {
        if (g.n !== want.n) kinds.push("checkpoint");
        if (g.directive !== want.directive) kinds.push("directive");
        if (g.resumePoint !== undefined && g.resumePoint !== want.resumePoint) kinds.push("resume_point");
      }
      figures.comparisons++;
      if (!kinds.length) return;
      figures.disagreements++;
      figures.bySchedule[c.i] = (figures.bySchedule[c.i] ?? 0) + 1;
      for (const k of kinds) figures.byReaderKind[`${reader}_${k}`] = (figures.byReaderKind[`${reader}_${k}`] ?? 0) + 1;
      if (c.examples.length < 400) c.examples.push({ schedule: c.i, step: x.step, action: x.action, reader, agent: `${spec.agent}/${spec.session}`, kinds, want, got: g });
    });
  }
  if (!seedAnswers) return;
  // The seed's own reader: its documented errors named, never counted as checkpost's disagreements.
  const seed = await seedAnswers;
  refs.forEach((spec, j) => {
    const t = x.model.answer(spec.agent, spec.session);
    const g = seed[j] as ReaderAnswer;
    figures.seedComparisons++;
    if (g.error === undefined && g.n === t.n) return;
    figures.seedCauses[seedCause(g, t, x.saveTimes)]++;
  });
}

/**
 * Why the seed's reader answered otherwise: its 24 h `since` window left the truth out; it sorted
 * by the writers' clock strings and a later-written save carries an earlier Time; it resumed from a
 * save checkpost's readers refuse (below the fence) or one a rewind went back past.
 */
function seedCause(g: ReaderAnswer, t: TruthAnswer, times: Map<number, { time: string; forgeMs: number }>): SeedCause {
  if (g.error !== undefined) return "error";
  // A newer save than the truth: one checkpost refuses (a zombie below the fence) or a rewind went back past.
  if (g.n !== null && (t.n === null || g.n > t.n)) return "ignores_fence_and_controls";
  const truth = t.n === null ? undefined : times.get(t.n);
  const got = g.n === null ? undefined : times.get(g.n);
  if (truth && got && got.time > truth.time) return "clock_string_sort";
  if (truth && truth.forgeMs < Date.now() - 24 * HOUR) return "24h_window";
  return "unexplained";
}
