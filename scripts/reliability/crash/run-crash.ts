/** The crash suite: real worker processes SIGKILLed at seeded random moments, restarted until done. */
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mulberry32 } from "../../../src/embedded-forge/index.ts";
import { AGENT_LOGIN, REPO, startReliabilityWorld } from "../reliability-world.ts";
import type { ReliabilityWorld } from "../reliability-world.ts";
import { judgeTrial } from "./judge-trial.ts";
import type { ResumeSeen, TrialRecord } from "./judge-trial.ts";
import { WorkerProcess } from "./worker-process.ts";
import type { WorkerEvent } from "./steps.ts";

export interface CrashFigures {
  trials: number;
  correct_resumes: number;
  redone_steps_beyond_last_checkpoint: number;
  duplicate_checkpoints: number;
  zombie_resumes: number;
  kills: number;
  restarts: number;
  zombie_trials: number;
  excess_redone: number;
  incomplete: number;
}
export const CRASH_MUST_BE_ZERO = ["duplicate_checkpoints", "zombie_resumes", "excess_redone", "incomplete"] as const;

export interface CrashRun {
  figures: CrashFigures;
  problems: string[];
  elapsedMs: number;
}

const STEP_MS = 12;
const saves = (evs: readonly WorkerEvent[]) => evs.filter((e) => e.e === "saved").length;
const resumedOf = (w: WorkerProcess): ResumeSeen | null => {
  const r = w.events.find((e) => e.e === "resumed");
  return r && r.e === "resumed" ? { incarnation: r.incarnation, phase: r.phase, resume_point: r.resume_point, commentId: r.commentId } : null;
};

async function runTrial(world: ReliabilityWorld, dir: string, seed: number, t: number, zombieTrial: boolean) {
  const rand = mulberry32(seed * 100_003 + t);
  const session = `crash-${seed}-${t}`;
  const worklog = join(dir, `${session}.log`);
  const resumes: ResumeSeen[] = [];
  let incarnation = 0;
  let kills = 0;
  let zombie: TrialRecord["zombie"] = null;
  const spawnWorker = () =>
    new WorkerProcess({
      FORGEJO_URL: world.forge.url,
      FORGEJO_TOKEN: world.token,
      FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}`,
      CHECKPOST_ISSUE: String(world.issue),
      CRASH_LOGIN: AGENT_LOGIN,
      CRASH_SESSION: session,
      CRASH_WORKLOG: worklog,
      CRASH_INCARNATION: String(++incarnation),
      CRASH_STEP_MS: String(STEP_MS),
    });
  const finish = (w: WorkerProcess) => {
    const r = resumedOf(w);
    if (r) resumes.push(r);
  };
  const logLines = () => (existsSync(worklog) ? readFileSync(worklog, "utf8").split("\n").filter(Boolean) : []);

  if (zombieTrial) {
    // A hangs (SIGSTOP) after some checkpoints; B takes over and checkpoints; A wakes and keeps writing.
    const a = spawnWorker();
    const j = 1 + Math.floor(rand() * 3);
    await a.until((evs) => saves(evs) >= j);
    a.signal("SIGSTOP");
    const atStop = saves(a.events);
    const b = spawnWorker();
    await b.until((evs) => saves(evs) >= 1);
    zombie = { incarnation: 1, legitLines: logLines().filter((l) => l.endsWith(" 1")).length };
    a.signal("SIGCONT");
    await a.until((evs) => saves(evs) >= atStop + 2 || evs.some((e) => e.e === "done"));
    await a.kill();
    finish(a);
    const timer = setTimeout(() => void b.kill(), rand() * STEP_MS * 3);
    await b.exited;
    clearTimeout(timer);
    finish(b);
    kills += 2;
  }
  const plannedKills = 1 + Math.floor(rand() * 3);
  for (let k = 0; k < plannedKills; k++) {
    const w = spawnWorker();
    let delay: number;
    if (rand() < 0.2)
      delay = rand() * 900; // anywhere, start-up included
    else {
      await w.until((evs) => evs.some((e) => e.e === "resumed"));
      delay = rand() * STEP_MS * 1.5 * 7;
    }
    const timer = setTimeout(() => void w.kill(), delay);
    const exit = await w.exited;
    clearTimeout(timer);
    if (exit.signal === "SIGKILL") kills++;
    finish(w);
  }
  // Let it finish (a few attempts, in case a run fails for another reason).
  for (let attempt = 0; attempt < 3; attempt++) {
    const w = spawnWorker();
    await w.exited;
    finish(w);
    if (w.events.some((e) => e.e === "done")) break;
    if (attempt === 2) throw new Error(`trial ${t}: worker never finished: ${w.stderr}`);
  }
  const record: TrialRecord = { session, resumes, worklog: logLines(), zombie };
  const comments = await world.api().listCommentsSince(REPO, world.issue);
  return { verdict: judgeTrial(record, comments), kills, restarts: incarnation - 1 };
}

export async function runCrash(options: { trials: number; seed?: number; concurrency?: number; zombieEvery?: number }): Promise<CrashRun> {
  const started = performance.now();
  const seed = options.seed ?? 1;
  const world = await startReliabilityWorld({ seed });
  const dir = mkdtempSync(join(tmpdir(), "checkpost-crash-"));
  const figures: CrashFigures = {
    trials: 0,
    correct_resumes: 0,
    redone_steps_beyond_last_checkpoint: 0,
    duplicate_checkpoints: 0,
    zombie_resumes: 0,
    kills: 0,
    restarts: 0,
    zombie_trials: 0,
    excess_redone: 0,
    incomplete: 0,
  };
  const problems: string[] = [];
  const zombieEvery = options.zombieEvery ?? 5;
  try {
    let next = 0;
    const lane = async () => {
      for (let t = next++; t < options.trials; t = next++) {
        const zombieTrial = t % zombieEvery === zombieEvery - 1;
        const { verdict, kills, restarts } = await runTrial(world, dir, seed, t, zombieTrial);
        figures.trials++;
        if (verdict.correct) figures.correct_resumes++;
        figures.redone_steps_beyond_last_checkpoint += verdict.redone;
        figures.duplicate_checkpoints += verdict.duplicates;
        figures.zombie_resumes += verdict.zombieResumes;
        figures.excess_redone += verdict.excessRedone;
        if (!verdict.complete) figures.incomplete++;
        figures.kills += kills;
        figures.restarts += restarts;
        if (zombieTrial) figures.zombie_trials++;
        problems.push(...verdict.problems.map((p) => `trial ${t}: ${p}`));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, lane));
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { figures, problems, elapsedMs: performance.now() - started };
}
