/**
 * A Python save as a process (`python3 -m checkpost save`, the standard-library client in python/) against
 * the seed's own agent code doing the same save (bench/seed-agent.py: the seed's functions, cut verbatim),
 * side by side and alternating, against the embedded Forgejo at the benchmark's 20 ms latency and on bare
 * loopback. Wall time, CPU and peak RSS of each process come from bench/measure.py (os.wait4); the
 * forge's request counter gives the requests per save.
 *
 *   node --import tsx bench/python-speed.ts [--runs N] [--out FILE]      (part of `npm run bench`)
 *
 * Goal (issue 21): the Python save ≤ 1.0× the seed's median wall time at 20 ms, with 1 request when the
 * issue is known (the seed's save is 2: it looks the issue up every time). Needs python3.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startForge } from "../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import { parseComment } from "../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../src/session-client/index.ts";
import { type ProcessSummary, type Sample, quantile, realPython as python, summarizeProcesses } from "./process-samples.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const DATA = JSON.stringify({ issue_number: 7, branch_name: "feat/bench", completed_subtasks: [1, 2, 3] });

export interface PySummary extends ProcessSummary {
  /** Requests the forge served per save (median). */
  requests: number;
}
export interface PythonSpeedResult {
  latencyMs: number;
  seed: PySummary;
  python: PySummary;
  /** python median / seed median. */
  ratio: number;
  goalRatio: number;
  met: { time: boolean; oneRequest: boolean };
}

const summarize = (xs: Sample[], requests: number[]): PySummary => ({ ...summarizeProcesses(xs), requests: quantile(requests, 0.5) });

export async function pythonSpeed(opts: { runs: number; latencies: number[]; log?: (s: string) => void }): Promise<PythonSpeedResult[]> {
  const log = opts.log ?? (() => {});
  const py = python();
  // The package as `pip install ./python` leaves it: a copy, byte-compiled (pip compiles at install; a
  // checkout's sources would be compiled again by every process where PYTHONDONTWRITEBYTECODE is set).
  const site = mkdtempSync(join(tmpdir(), "checkpost-py-site-"));
  cpSync(join(root, "python/checkpost"), join(site, "checkpost"), { recursive: true, filter: (src) => !src.includes("__pycache__") });
  execFileSync(py, ["-m", "compileall", "-q", join(site, "checkpost")]);
  const forge = await startForge({ port: 0 });
  const results: PythonSpeedResult[] = [];
  try {
    const a = forge.admin;
    a.createUser("agent");
    const token = a.createToken("agent");
    a.createRepo("agent", "work");
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    const issue = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, labels: [DEFAULT_SESSION_LABEL] }).number;
    const env = {
      ...process.env,
      FORGEJO_URL: forge.url,
      FORGEJO_TOKEN: token,
      FORGEJO_REPOSITORY: "agent/work",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-py-bench-")),
      PYTHONPATH: site,
    };
    const measure = async (cmd: string[]): Promise<{ sample: Sample; requests: number }> => {
      const before = a.stats().totalRequests;
      const { stdout } = await run(py, [join(root, "bench/measure.py"), ...cmd], { env, encoding: "utf8" });
      const r = JSON.parse(stdout) as Sample & { status: number };
      if (r.status !== 0) throw new Error(`bench/python-speed: ${cmd.join(" ")} exited ${r.status}`);
      return { sample: r, requests: a.stats().totalRequests - before };
    };
    const seed = (phase: string) => measure([py, join(root, "bench/seed-agent.py"), "implementation-worker", "bench", phase, DATA]);
    const pySave = (phase: string) => measure([py, "-m", "checkpost", "save", "--agent", "implementation-worker", "--session", "bench", "--phase", phase, "--data", DATA]);
    let saves = 0;
    for (const latencyMs of opts.latencies) {
      a.setFaults({ latencyMs });
      // Warm-up: page cache and .pyc files, and the client's issue cache (its first save looks the issue up, like the seed's every save).
      await seed("warmup");
      await pySave("warmup");
      saves += 2;
      const s: Sample[] = [];
      const p: Sample[] = [];
      const sr: number[] = [];
      const pr: number[] = [];
      for (let i = 0; i < opts.runs; i++) {
        // Alternate which goes first, so drift in machine load falls on both alike.
        const order = i % 2 === 0 ? (["seed", "py"] as const) : (["py", "seed"] as const);
        for (const who of order) {
          const m = who === "seed" ? await seed("clone_complete") : await pySave("clone_complete");
          (who === "seed" ? s : p).push(m.sample);
          (who === "seed" ? sr : pr).push(m.requests);
        }
        saves += 2;
      }
      const seedSummary = summarize(s, sr);
      const pySummary = summarize(p, pr);
      const ratio = Math.round((pySummary.medianMs / seedSummary.medianMs) * 100) / 100;
      const goalRatio = 1.0;
      results.push({ latencyMs, seed: seedSummary, python: pySummary, ratio, goalRatio, met: { time: ratio <= goalRatio, oneRequest: pySummary.requests === 1 } });
      log(
        `python-speed @${latencyMs} ms: seed ${seedSummary.medianMs} ms (${seedSummary.requests} requests), python ${pySummary.medianMs} ms (${pySummary.requests} request${pySummary.requests === 1 ? "" : "s"}) (×${ratio})`,
      );
    }
    a.setFaults({});
    // Every process really saved: one parseable checkpoint per run.
    const comments = await new ForgejoApi(new ForgejoClient({ url: forge.url, token })).listCommentsSince({ owner: "agent", repo: "work" }, issue);
    const checkpoints = comments.filter((cm) => parseComment(cm.body).kind === "checkpoint").length;
    if (checkpoints !== saves) throw new Error(`bench/python-speed: expected ${saves} checkpoints on the issue, found ${checkpoints}`);
  } finally {
    await forge.close();
  }
  return results;
}

export function formatPythonSpeed(rs: PythonSpeedResult[]): string {
  const lines = [
    "| latency | seed agent: wall median / p90, CPU, RSS, requests | `python3 -m checkpost save`: wall median / p90, CPU, RSS, requests | wall ratio (goal) | goals met |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const r of rs)
    lines.push(
      `| ${r.latencyMs ? `${r.latencyMs} ms` : "loopback"} | ${r.seed.medianMs} / ${r.seed.p90Ms} ms, ${r.seed.medianCpuMs} ms, ${r.seed.medianRssMiB} MiB, ${r.seed.requests} | ${r.python.medianMs} / ${r.python.p90Ms} ms, ${r.python.medianCpuMs} ms, ${r.python.medianRssMiB} MiB, ${r.python.requests} | ×${r.ratio} (≤ ×${r.goalRatio}) | time ${r.met.time ? "yes" : "no"}, 1 request ${r.met.oneRequest ? "yes" : "no"} |`,
    );
  return lines.join("\n");
}

async function main() {
  const argv = process.argv.slice(2);
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const runs = Number(arg("--runs") ?? 15);
  const out = arg("--out") ?? fileURLToPath(new URL("./results/python-latest.json", import.meta.url));
  const results = await pythonSpeed({ runs, latencies: [20, 0], log: (s) => process.stderr.write(`${s}\n`) });
  process.stdout.write(`${formatPythonSpeed(results)}\n`);
  mkdirSync(dirname(out), { recursive: true });
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    python: execFileSync(python(), ["--version"], { encoding: "utf8" }).trim(),
    loadavg: readFileSync("/proc/loadavg", "utf8").trim(),
  };
  writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, runs, out: relative(root, out), results }, null, 2)}\n`);
  process.stderr.write(`wrote ${relative(root, out)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
