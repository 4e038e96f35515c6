/**
 * Deterministic generator of a realistic session issue: 20 agents posting
 * checkpoints (0.5–2 KB) and health signals, plus some human chatter, spread
 * over the last 72 hours. Four probe agent+sessions carry the cases the
 * benchmark checks answers on; the ground truth of each is the newest
 * trusted checkpoint by comment id, known from the generation order.
 */
import { mulberry32 } from "../src/embedded-forge/index.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../src/protocol/index.ts";
import type { JsonObject } from "../src/protocol/index.ts";

export const AGENT_LOGIN = "agent"; // the agents' shared account (trusted)
export const BOT_LOGIN = "checkpost-bot";
export const HUMAN_LOGIN = "alice"; // a person chatting on the issue
export const STRANGER_LOGIN = "mallory"; // can comment, not trusted

export const SPAN_MS = 72 * 3600_000;
const HOUR = 3600_000;

export const AGENTS = [
  "implementation-worker",
  "implementation-orchestrator",
  "pr-self-reviewer",
  "release-manager",
  "product-builder",
  "issue-triager",
  "test-runner",
  "docs-writer",
  "dependency-updater",
  "security-auditor",
  "refactor-worker",
  "ci-doctor",
  "changelog-writer",
  "backlog-groomer",
  "design-reviewer",
  "perf-profiler",
  "merge-coordinator",
  "spec-writer",
  "bug-reproducer",
  "qa-explorer",
] as const;

export const sessionOf = (agent: string) => `sess-${agent}-2026`;

/** The cases answers are checked on. */
export type ProbeKind = "normal" | "tie" | "old" | "forged";
export interface Probe {
  kind: ProbeKind;
  agent: string;
  session: string;
  what: string;
  /** `bench_ref` of the ground-truth checkpoint. */
  truth: string;
}
const PROBE_AGENTS: Record<ProbeKind, string> = {
  normal: "implementation-orchestrator",
  tie: "implementation-worker",
  old: "release-manager",
  forged: "pr-self-reviewer",
};
const PROBE_WHAT: Record<ProbeKind, string> = {
  normal: "newest checkpoint 1–2 h old, nothing special",
  tie: 'two newest checkpoints in the same second: "…:00Z" (older) and "…:00.500000Z" (newer)',
  old: "newest checkpoint 30 h old (outside the seed's 24 h window)",
  forged: "an untrusted user posted a newer [CHECKPOINT] naming the agent",
};

export interface GenComment {
  login: string;
  body: string;
  /** epoch ms (the forge keeps whole seconds) */
  at: number;
  kind: "checkpoint" | "health" | "chatter";
}

export interface Dataset {
  comments: GenComment[];
  probes: Probe[];
  bytes: number;
}

const WORDS = "the a branch build test fix merge review retry flaky cache lint docs api schema worker queue deploy rollback timeout parser index dashboard".split(" ");

export function createGenerator(seed: number) {
  const rnd = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  let refNo = 0;
  const seqs = new Map<string, number>();

  const checkpointData = (ref: string): JsonObject => {
    const n = int(1, 12);
    return {
      bench_ref: ref,
      issue_number: int(1, 900),
      branch_name: `feat/${words(2).replace(/ /g, "-")}-${int(1, 999)}`,
      completed_subtasks: Array.from({ length: n }, (_, i) => i + 1),
      files_modified: Array.from({ length: int(2, 14) }, () => `src/${pick(WORDS)}/${pick(WORDS)}-${int(1, 99)}.ts`),
      working_dir: `/tmp/work/${int(1000, 9999)}`,
      notes: words(int(10, 110)),
    };
  };

  /** One checkpoint body; `time` overrides the Time: string. Half the agents write checkpost's additive headers. */
  const checkpoint = (agent: string, at: number, opts: { time?: string; session?: string } = {}) => {
    const ref = `ref-${++refNo}`;
    const session = opts.session ?? sessionOf(agent);
    const additive = AGENTS.indexOf(agent as (typeof AGENTS)[number]) % 2 === 0;
    const k = `${agent}|${session}`;
    const seq = (seqs.get(k) ?? 0) + 1;
    if (additive) seqs.set(k, seq);
    const body = formatCheckpoint({
      agent,
      session,
      phase: pick(["clone_complete", "subtask_1_complete", "subtask_2_complete", "all_subtasks_complete", "commit_complete", "pr_created"]),
      timestamp: opts.time ?? pythonUtcIsoformat(new Date(at)),
      data: checkpointData(ref),
      ...(additive ? { id: `cp-${ref.replace("ref-", "").padStart(12, "0")}`, seq } : {}),
    });
    return { ref, body };
  };

  const health = (agent: string, at: number) =>
    formatHealth({
      agent,
      session: sessionOf(agent),
      timestamp: pythonUtcIsoformat(new Date(at)),
      status: "Active",
      metrics: { cycle_count: int(1, 5000), active_workers: int(0, 8), queue_depth: int(0, 40), completed_issues: int(0, 300), failed_issues: int(0, 9) },
    });

  const chatter = () => `${pick(["Looks good.", "Why did the build fail here?", "@agent please rebase", "Pausing the pool for the release.", "FYI"])} ${words(int(20, 120))}`;

  return { rnd, int, pick, checkpoint, health, chatter };
}

/**
 * A session issue of `n` comments (60 % checkpoints, 30 % health, 10 % chatter)
 * spread over [now − 72 h, now − 1 min], with the four probes planted.
 */
export function generateDataset(n: number, now: number, seed = 42): Dataset {
  const g = createGenerator(seed);
  const out: GenComment[] = [];
  const start = now - SPAN_MS;
  const endNormal = now - 60_000;
  const special = 8; // planted comments
  const times = Array.from({ length: Math.max(0, n - special) }, () => start + g.rnd() * (endNormal - start)).sort((a, b) => a - b);
  const truths = new Map<string, string>();
  const probeAgents = new Set(Object.values(PROBE_AGENTS));
  for (const at of times) {
    const r = g.rnd();
    let agent = g.pick(AGENTS);
    // Probe agents stop early so their planted checkpoints are their newest.
    if (agent === PROBE_AGENTS.old && at > now - 31 * HOUR) agent = "qa-explorer";
    if (probeAgents.has(agent) && agent !== PROBE_AGENTS.old && at > now - 2 * HOUR) agent = "test-runner";
    if (r < 0.6) {
      const c = g.checkpoint(agent, at);
      out.push({ login: AGENT_LOGIN, body: c.body, at, kind: "checkpoint" });
      truths.set(agent, c.ref);
    } else if (r < 0.9) out.push({ login: AGENT_LOGIN, body: g.health(agent, at), at, kind: "health" });
    else out.push({ login: HUMAN_LOGIN, body: g.chatter(), at, kind: "chatter" });
  }
  const plant = (c: GenComment) => out.push(c);
  const cp = (agent: string, at: number, time?: string) => {
    const c = g.checkpoint(agent, at, time ? { time } : {});
    plant({ login: AGENT_LOGIN, body: c.body, at, kind: "checkpoint" });
    return c.ref;
  };
  // normal: a checkpoint 90 min ago
  truths.set(PROBE_AGENTS.normal, cp(PROBE_AGENTS.normal, now - 90 * 60_000));
  // old: the newest checkpoint 30 h ago (health signals may continue: none here)
  truths.set(PROBE_AGENTS.old, cp(PROBE_AGENTS.old, now - 30 * HOUR - 5_000));
  // tie: two checkpoints in the same wall-clock second, 40 min ago
  const sec = Math.floor((now - 40 * 60_000) / 1000) * 1000;
  cp(PROBE_AGENTS.tie, sec, pythonUtcIsoformat(new Date(sec))); // "…:SSZ"
  truths.set(PROBE_AGENTS.tie, cp(PROBE_AGENTS.tie, sec + 500, pythonUtcIsoformat(new Date(sec + 500)))); // "…:SS.500000Z", newer
  // forged: a real checkpoint 50 min ago, then a stranger's forged one 20 min ago
  truths.set(PROBE_AGENTS.forged, cp(PROBE_AGENTS.forged, now - 50 * 60_000));
  const forged = g.checkpoint(PROBE_AGENTS.forged, now - 20 * 60_000);
  plant({ login: STRANGER_LOGIN, body: forged.body, at: now - 20 * 60_000, kind: "checkpoint" });
  while (out.length < n) plant({ login: HUMAN_LOGIN, body: g.chatter(), at: now - g.int(2, 50) * 60_000, kind: "chatter" });
  // The forge lists by (created second, id): insert in time order so ids follow time.
  out.sort((a, b) => a.at - b.at);
  const probes = (Object.keys(PROBE_AGENTS) as ProbeKind[]).map((kind) => {
    const agent = PROBE_AGENTS[kind];
    return { kind, agent, session: sessionOf(agent), what: PROBE_WHAT[kind], truth: truths.get(agent) ?? "" };
  });
  return { comments: out.slice(0, n), probes, bytes: out.reduce((s, c) => s + Buffer.byteLength(c.body), 0) };
}

/** `bench_ref` of a resumed state, if any. */
export function refOf(state: unknown): string | null {
  return state && typeof state === "object" && "bench_ref" in state ? String((state as { bench_ref: unknown }).bench_ref) : null;
}
