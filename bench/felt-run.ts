/**
 * Felt latency (issue 32): how long a person or an agent waits, in each bot mode and store.
 * - command → directive: from a person's slash command, or a tick of the dashboard's pause box, until
 *   the agent's `resume` sees the directive (the library's SessionStore, and the CLI's `checkpost resume`
 *   run in this process: its start-up is bench/cli-speed.ts's figure), and until the [CONTROL] record is
 *   on the issue (the observer webhook sees it created);
 * - save → /api/resume on the leader, and on a follower (PostgreSQL replicas);
 * - save → dashboard body (the observer sees the bot's edit holding the save);
 * - leader kill → a follower serves the next save (PostgreSQL replicas).
 * Each figure is sampled one after another (saves to the dashboard overlap, at an eighth of its interval).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../src/app/cli.ts";
import type { Bot } from "../src/bot/create-bot.ts";
import { dashboardRenderKey, parseControlCheckboxes } from "../src/dashboard/index.ts";
import { DEFAULT_DASHBOARD_HOLD_MS } from "../src/bot/upkeep/dashboard-writer.ts";
import { parseComment } from "../src/protocol/index.ts";
import { SessionStore } from "../src/session-client/index.ts";
import { API_TOKEN, feltWorld, REPO } from "./felt-world.ts";
import type { FeltSettings, FeltWorld } from "./felt-world.ts";
import { percentile } from "./http.ts";

export type { FeltSettings };

export interface Figure {
  name: string;
  /** Milliseconds, one per sample that arrived. */
  samples: number[];
  /** Samples that did not arrive within the wait (counted, never in the percentiles). */
  missed: number;
  p50: number;
  p99: number;
}

export interface FeltResult {
  settings: FeltSettings;
  figures: Figure[];
}

export interface FeltOptions {
  /** Samples of each figure (the dashboard's and the commands'). */
  samples: number;
  /** Leader kills (PostgreSQL): each waits for a takeover, about a lease TTL at the defaults. */
  killSamples: number;
  /** How long one sample may take before it counts as missed (a command's: a poll interval plus 10 s at most). */
  waitMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

const AGENT = "w";
const SESSION = "s1";
/** Between two reads of a loop that waits for something to show (each read is one or a few requests). */
const READ_GAP_MS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function figure(name: string, samples: number[], missed: number): Figure {
  return { name, samples, missed, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** Read until `ok` holds; the time it first held (performance.now()), or null after `waitMs`. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, waitMs: number): Promise<number | null> {
  const end = performance.now() + waitMs;
  while (performance.now() < end) {
    try {
      if (ok(await read())) return performance.now();
    } catch {
      // a read that failed (a replica going down) is tried again
    }
    await sleep(READ_GAP_MS);
  }
  return null;
}

const withDeadline = <T>(p: Promise<T>, ms: number): Promise<T | null> => Promise.race([p, sleep(ms).then(() => null)]);

async function phaseAt(b: Bot, agent = AGENT): Promise<string | null> {
  const r = await fetch(`${b.url}/api/resume?agent=${agent}&session=${SESSION}`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
  return r.status === 200 ? ((await r.json()) as { phase: string }).phase : null;
}

export async function runFeltSetting(settings: FeltSettings, o: FeltOptions, databaseUrl?: string): Promise<FeltResult> {
  const w = await feltWorld(settings, databaseUrl);
  const cacheDir = mkdtempSync(join(tmpdir(), "checkpost-felt-cli-"));
  const log = o.log ?? (() => {});
  // Long enough for a poll, a dashboard interval or a takeover, whichever the figure waits for.
  const waitMs = o.waitMs ?? 2 * Math.max(settings.mode === "polling" ? settings.pollMs : 0, settings.dashboardMs, 1_000) + 30_000;
  try {
    const agentStore = new SessionStore({ api: w.api(w.agentToken), repo: REPO, issue: w.issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"] });
    const figures: Figure[] = [];
    await agentStore.save({ agent: AGENT, session: SESSION, phase: "start", data: {} });
    const leader = await w.leader();
    const follower = w.bots.find((b) => b !== leader);
    if (
      (await until(
        () => phaseAt(leader),
        (p) => p === "start",
        waitMs,
      )) === null
    )
      throw new Error("the bot never served the first save");
    figures.push(...(await saveToApi(agentStore, leader, follower, o.samples, waitMs)));
    log(`  ${label(settings)}: save → /api/resume done`);
    figures.push(await saveToDashboard(w, agentStore, o.samples, waitMs));
    log(`  ${label(settings)}: save → dashboard done`);
    // A command missed (see the polling note in test/bench/felt.test.ts) is counted, not waited for long.
    const commandWaitMs = Math.min(waitMs, (settings.mode === "polling" ? settings.pollMs : 0) + 10_000);
    figures.push(...(await commands(w, agentStore, "slash", o.samples, commandWaitMs, cacheDir)));
    log(`  ${label(settings)}: slash command → directive done`);
    figures.push(...(await commands(w, agentStore, "tick", o.samples, commandWaitMs, cacheDir)));
    log(`  ${label(settings)}: tick → directive done`);
    if (settings.store === "postgres" && o.killSamples > 0) {
      figures.push(await leaderKill(w, agentStore, o.killSamples, settings.leaseTtlMs * 3 + waitMs, log));
      log(`  ${label(settings)}: leader kill → serve done`);
    }
    return { settings, figures };
  } finally {
    await w.close();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

export function label(s: FeltSettings): string {
  return `${s.mode}/${s.store}`;
}

async function saveToApi(store: SessionStore, leader: Bot, follower: Bot | undefined, n: number, waitMs: number): Promise<Figure[]> {
  const lead: number[] = [];
  const follow: number[] = [];
  let missedLead = 0;
  let missedFollow = 0;
  for (let i = 0; i < n; i++) {
    const phase = `api-${i}`;
    const t0 = performance.now();
    await store.save({ agent: AGENT, session: SESSION, phase, data: { i } });
    const [l, f] = await Promise.all([
      until(
        () => phaseAt(leader),
        (p) => p === phase,
        waitMs,
      ),
      follower
        ? until(
            () => phaseAt(follower),
            (p) => p === phase,
            waitMs,
          )
        : Promise.resolve(null),
    ]);
    if (l === null) missedLead++;
    else lead.push(l - t0);
    if (follower) {
      if (f === null) missedFollow++;
      else follow.push(f - t0);
    }
  }
  const out = [figure("save → /api/resume (leader)", lead, missedLead)];
  if (follower) out.push(figure("save → /api/resume (follower)", follow, missedFollow));
  return out;
}

/** Saves an eighth of the dashboard interval apart, each by one of 20 agents in turn, so each is still the newest of its agent when the body is drawn. */
async function saveToDashboard(w: FeltWorld, store: SessionStore, n: number, waitMs: number): Promise<Figure> {
  const gap = Math.max(50, Math.floor(w.settings.dashboardMs / 8));
  const pending: Promise<number | null>[] = [];
  for (let i = 0; i < n; i++) {
    const phase = `dash-${i}-x`;
    const t0 = performance.now();
    const shown = w.observer.when(t0, (s) => s.kind === "body" && s.body.includes(phase));
    await store.save({ agent: `d${i % 20}`, session: SESSION, phase, data: {} });
    pending.push(withDeadline(shown, waitMs).then((at) => (at === null ? null : at - t0)));
    await sleep(gap);
  }
  const got = await Promise.all(pending);
  return figure(
    `save → dashboard body (interval ${w.settings.dashboardMs} ms)`,
    got.filter((x): x is number => x !== null),
    got.filter((x) => x === null).length,
  );
}

/**
 * Pause and unpause in turn, by slash command or by ticking the dashboard's pause box, and time three
 * arrivals of each: the [CONTROL] record on the issue, the library's resume and the CLI's resume seeing it.
 * A tick acts once per dashboard rendering, box and state (ControlDesk), and the body is held from redraws
 * for the default hold after a person's edit: ticks go round the agents on the page (a pause, then an
 * unpause, each), and wait for the redraw after the hold when every box of the page has been used.
 */
async function commands(w: FeltWorld, store: SessionStore, how: "slash" | "tick", n: number, waitMs: number, cacheDir: string): Promise<Figure[]> {
  const record: number[] = [];
  const lib: number[] = [];
  const cli: number[] = [];
  const missed = { record: 0, lib: 0, cli: 0 };
  const alice = w.api(w.aliceToken);
  const env = {
    FORGEJO_URL: w.forge.url,
    FORGEJO_TOKEN: w.agentToken,
    FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}`,
    FORGEJO_ISSUE: String(w.issue),
    CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
    CHECKPOST_CACHE_DIR: cacheDir,
  };
  const cliDirective = async (agent: string): Promise<string | null> => {
    const out: string[] = [];
    const code = await runCli(["resume", "--agent", agent, "--session", SESSION], { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", cwd: process.cwd(), env });
    if (code !== 0) throw new Error(`checkpost resume exited ${code}`);
    return (JSON.parse(out.join("")) as { directive: { kind: string } | null }).directive?.kind ?? null;
  };
  const libDirective = async (agent: string) => (await store.resume(agent, SESSION, null)).directive?.kind ?? null;
  /** The agents paused and unpaused by a tick on each rendering of the page (a tick acts once per rendering, box and state). */
  const used = new Map<string, Set<string>>();
  /** The body to tick `agent`'s pause box on (pause: an agent not ticked on this rendering yet), waiting for a redraw when every box is used. */
  const pageFor = async (pause: boolean, agent: string): Promise<{ body: string; agent: string }> => {
    for (let round = 0; round < 3; round++) {
      const body = (await alice.readIssue(REPO, w.issue)).body;
      const render = dashboardRenderKey(body);
      const done = used.get(render) ?? new Set<string>();
      used.set(render, done);
      const boxes = parseControlCheckboxes(body).filter((b) => b.action === "pause" && b.session === SESSION && b.checked !== pause);
      const pick = pause ? boxes.find((b) => !done.has(b.agent)) : boxes.find((b) => b.agent === agent);
      if (pick) {
        done.add(pick.agent);
        return { body, agent: pick.agent };
      }
      // Every box of this rendering is used: the bot redraws the body when the hold after a person's edit ends.
      await withDeadline(
        w.observer.when(performance.now(), (x) => x.kind === "body" && x.author === "checkpost-bot"),
        DEFAULT_DASHBOARD_HOLD_MS + waitMs,
      );
    }
    throw new Error(`the dashboard shows no pause box to ${pause ? "tick" : "untick"}`);
  };
  // Even: every run ends unpaused, so the next figure starts from the same state.
  const total = n % 2 ? n + 1 : n;
  /** The agent whose box the last tick paused (its unpause unticks the same box). */
  let ticked = AGENT;
  for (let k = 0; k < total; k++) {
    const pause = k % 2 === 0;
    const action = pause ? "pause" : "unpause";
    const want = pause ? "pause" : null;
    let agent = AGENT;
    let t0: number;
    if (how === "slash") {
      t0 = performance.now();
      await alice.postRecord(REPO, w.issue, `/checkpost ${pause ? "pause" : "resume"} ${agent} ${SESSION}`);
    } else {
      const got = await pageFor(pause, ticked);
      agent = got.agent;
      ticked = agent;
      const edited = got.body
        .split("\n")
        .map((l) => (isPauseBox(l, agent) ? l.replace(/^(\s*[-*] )\[[ xX]\]/, `$1[${pause ? "x" : " "}]`) : l))
        .join("\n");
      t0 = performance.now();
      await alice.writeIssueBody(REPO, w.issue, edited);
    }
    const recorded = w.observer.when(t0, (s) => {
      if (s.kind !== "comment" || s.author !== "checkpost-bot") return false;
      const p = parseComment(s.body);
      return p.kind === "control" && p.control.action === action && p.control.agent === agent;
    });
    if (k >= n) {
      // The closing unpause of an odd count is not a sample: its record is enough.
      await withDeadline(recorded, waitMs);
      continue;
    }
    const [r, l, c] = await Promise.all([
      withDeadline(recorded, waitMs),
      until(
        () => libDirective(agent),
        (d) => d === want,
        waitMs,
      ),
      until(
        () => cliDirective(agent),
        (d) => d === want,
        waitMs,
      ),
    ]);
    if (process.env["FELT_DEBUG"]) console.log(how, action, agent, { record: r && r - t0, lib: l && l - t0, cli: c && c - t0 });
    if (r === null) missed.record++;
    else record.push(r - t0);
    if (l === null) missed.lib++;
    else lib.push(l - t0);
    if (c === null) missed.cli++;
    else cli.push(c - t0);
  }
  const what = how === "slash" ? "slash command" : "tick";
  return [
    figure(`${what} → [CONTROL] record on the issue`, record, missed.record),
    figure(`${what} → directive (library resume)`, lib, missed.lib),
    figure(`${what} → directive (CLI resume, in process)`, cli, missed.cli),
  ];
}

function isPauseBox(line: string, agent: string): boolean {
  const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${line}\n<!-- checkpost:dashboard:end -->`)[0];
  return box?.action === "pause" && box.agent === agent && box.session === SESSION;
}

/** Crash the leader, save at once, time until a follower serves that save; then bring a replacement replica up. */
async function leaderKill(w: FeltWorld, store: SessionStore, n: number, waitMs: number, log: (line: string) => void): Promise<Figure> {
  const out: number[] = [];
  let missed = 0;
  for (let k = 0; k < n; k++) {
    const leader = await w.leader();
    const follower = w.bots.find((b) => b !== leader);
    if (!follower) throw new Error("no follower to take over");
    const before = `kill-${k}-before`;
    await store.save({ agent: AGENT, session: SESSION, phase: before, data: {} });
    if (
      (await until(
        () => phaseAt(follower),
        (p) => p === before,
        waitMs,
      )) === null
    )
      throw new Error("the follower never served the save before the kill");
    await w.crash(leader);
    const t0 = performance.now();
    const after = `kill-${k}-after`;
    await store.save({ agent: AGENT, session: SESSION, phase: after, data: {} });
    const served = await until(
      () => phaseAt(follower),
      (p) => p === after,
      waitMs,
    );
    if (served === null) missed++;
    else out.push(served - t0);
    log(`    kill ${k + 1}/${n}: ${served === null ? "missed" : `${Math.round(served - t0)} ms`}`);
    await w.addReplica(`r-${k}-${Date.now().toString(36)}`);
  }
  return figure(`leader kill → a follower serves the next save (TTL ${w.settings.leaseTtlMs} ms)`, out, missed);
}
