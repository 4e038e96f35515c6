/** Judge one crash trial from the comments and the work log (independently of the projection). */
import { IMPLEMENTATION_WORKER_PHASE_MAP, FRESH_START, START, parseComment } from "../../../src/protocol/index.ts";
import type { HostComment } from "../../../src/ports/issue-host.ts";
import { STEPS } from "./steps.ts";

export interface ResumeSeen {
  incarnation: number;
  phase: string;
  resume_point: string;
  commentId: number | null;
}

export interface TrialRecord {
  session: string;
  resumes: ResumeSeen[];
  /** Work-log lines, "step incarnation", in order. */
  worklog: string[];
  /** A paused-then-continued incarnation, and how many of its log lines predate its successor. */
  zombie: { incarnation: number; legitLines: number } | null;
}

export interface TrialVerdict {
  correct: boolean;
  redone: number;
  excessRedone: number;
  duplicates: number;
  zombieResumes: number;
  complete: boolean;
  problems: string[];
}

interface Cp {
  commentId: number;
  id: string | undefined;
  epoch: number;
  phase: string;
  incarnation: number;
}

/** The newest checkpoint a correct reader resumes from: comment order, lower epochs after higher ones skipped. */
function fold(cps: readonly Cp[]): { latest: Cp | null; zombies: Set<number> } {
  let maxEpoch = -1;
  let latest: Cp | null = null;
  const zombies = new Set<number>();
  for (const cp of cps) {
    if (cp.epoch < maxEpoch) {
      zombies.add(cp.commentId);
      continue;
    }
    maxEpoch = cp.epoch;
    latest = cp;
  }
  return { latest, zombies };
}

export function judgeTrial(t: TrialRecord, comments: readonly HostComment[]): TrialVerdict {
  const problems: string[] = [];
  const cps: Cp[] = [];
  for (const c of comments) {
    const p = parseComment(c.body);
    if (p.kind !== "checkpoint" || p.checkpoint.session !== t.session) continue;
    const d = p.checkpoint.data as { incarnation?: number };
    cps.push({ commentId: c.id, id: p.checkpoint.id, epoch: p.checkpoint.epoch ?? 0, phase: p.checkpoint.phase, incarnation: d.incarnation ?? -1 });
  }
  cps.sort((a, b) => a.commentId - b.commentId);

  const ids = new Map<string, number>();
  for (const cp of cps) if (cp.id) ids.set(cp.id, (ids.get(cp.id) ?? 0) + 1);
  const duplicates = [...ids.values()].reduce((s, n) => s + n - 1, 0);

  const { zombies, latest: final } = fold(cps);
  let correct = true;
  let zombieResumes = 0;
  for (const r of t.resumes) {
    // What was durable when incarnation n resumed: earlier incarnations' comments older than anything n or later wrote.
    const bound = Math.min(...cps.filter((c) => c.incarnation >= r.incarnation).map((c) => c.commentId), Number.POSITIVE_INFINITY);
    const expected = fold(cps.filter((c) => c.incarnation < r.incarnation && c.commentId < bound)).latest;
    const want = expected?.commentId ?? null;
    const wantPoint = expected ? (IMPLEMENTATION_WORKER_PHASE_MAP[expected.phase] ?? START) : START;
    if (r.commentId !== want || r.resume_point !== wantPoint || (expected === null && r.phase !== FRESH_START)) {
      correct = false;
      problems.push(`incarnation ${r.incarnation} resumed from ${r.commentId} (${r.phase}, ${r.resume_point}); expected ${want} (${expected?.phase ?? FRESH_START}, ${wantPoint})`);
    }
    if (r.commentId !== null && zombies.has(r.commentId)) {
      zombieResumes++;
      problems.push(`incarnation ${r.incarnation} resumed from zombie comment ${r.commentId}`);
    }
  }

  // Redone work: a step logged again by a later (non-zombie) incarnation.
  const seen = new Set<string>();
  const redoneBy = new Map<number, number>();
  const zombieLines = new Map<number, number>();
  let redone = 0;
  for (const line of t.worklog) {
    const [step, incText] = line.split(" ") as [string, string];
    const inc = Number(incText);
    if (t.zombie && inc === t.zombie.incarnation) {
      const n = (zombieLines.get(inc) ?? 0) + 1;
      zombieLines.set(inc, n);
      if (n > t.zombie.legitLines) continue; // written while a zombie: not the session's work
    }
    if (seen.has(step)) {
      redone++;
      redoneBy.set(inc, (redoneBy.get(inc) ?? 0) + 1);
    }
    seen.add(step);
  }
  const excessRedone = [...redoneBy.values()].filter((n) => n > 1).length;
  if (excessRedone) problems.push(`more than one step redone after a kill: ${JSON.stringify([...redoneBy])}`);
  const complete = STEPS.every((s) => seen.has(s)) && final?.phase === "pr_created";
  if (!complete) problems.push(`trial incomplete: log has ${[...seen].join(",")}; newest checkpoint ${final?.phase ?? "none"}`);
  if (duplicates) problems.push(`${duplicates} duplicate checkpoint(s)`);
  return { correct, redone, excessRedone, duplicates, zombieResumes, complete, problems };
}
