/**
 * `checkpost save` as a whole process against the seed's own agent code doing the same save
 * (bench/seed-agent.py: the seed's functions, cut verbatim from fixtures/seed), side by side and
 * alternating, against the embedded Forgejo at the benchmark's 20 ms latency and on bare loopback.
 * Wall time and peak RSS of each process come from bench/measure.py (os.wait4).
 *
 *   node --import tsx bench/cli-speed.ts [--runs N] [--out FILE]      (part of `npm run bench`)
 *
 * Goals (issue 10): checkpost ≤ 1.0× the seed's median wall time at 20 ms, ≤ 1.5× on loopback,
 * ≤ 64 MiB peak RSS. Needs python3 and a built CLI (`npm run build`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startForge } from "../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import { parseComment } from "../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../src/session-client/index.ts";
import { type ProcessSummary, type Sample, maxRssMiB, realPython as python, summarizeProcesses } from "./process-samples.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const DATA = JSON.stringify({ issue_number: 7, branch_name: "feat/bench", completed_subtasks: [1, 2, 3] });

export type { Sample };
export interface Summary extends ProcessSummary {
  maxRssMiB: number;
}
export interface CliSpeedResult {
  latencyMs: number;
  seed: Summary;
  cli: Summary;
  /** The same CLI from its ESM bundle without the code cache (dist/cli-bundle/main.js): what the cache saves. */
  cliNoCodeCache: Summary;
  /** cli median / seed median. */
  ratio: number;
  goalRatio: number;
  met: { time: boolean; rss: boolean };
}

const summary = (xs: Sample[]): Summary => ({ ...summarizeProcesses(xs), maxRssMiB: maxRssMiB(xs) });

export async function cliSpeed(opts: { runs: number; latencies: number[]; log?: (s: string) => void }): Promise<CliSpeedResult[]> {
  const log = opts.log ?? (() => {});
  // What an agent runs: the bin (hot commands through V8's code cache, see src/cli/code-cache.ts).
  const bin = join(root, "bin/checkpost.cjs");
  const esmBundle = join(root, "dist/cli-bundle/main.js");
  if (!existsSync(esmBundle) || !existsSync(join(root, "dist/cli-bundle/hot.cjs"))) throw new Error("bench/cli-speed: run `npm run build` first (dist/cli-bundle)");
  const py = python();
  const forge = await startForge({ port: 0 });
  const results: CliSpeedResult[] = [];
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
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cli-bench-")),
      LOG_LEVEL: "warn" as const,
    };
    const measure = async (cmd: string[]): Promise<Sample> => {
      const { stdout } = await run(py, [join(root, "bench/measure.py"), ...cmd], { env, encoding: "utf8" });
      const r = JSON.parse(stdout) as Sample & { status: number };
      if (r.status !== 0) throw new Error(`bench/cli-speed: ${cmd.join(" ")} exited ${r.status}`);
      return r;
    };
    const seed = (phase: string) => measure([py, join(root, "bench/seed-agent.py"), "implementation-worker", "bench", phase, DATA]);
    const cli = (entry: string, phase: string) => measure([process.execPath, entry, "save", "--agent", "implementation-worker", "--session", "bench", "--phase", phase, "--data", DATA]);
    let saves = 0;
    for (const latencyMs of opts.latencies) {
      a.setFaults({ latencyMs });
      // Warm-up: page cache, and the CLI's issue cache (its first save looks the issue up, like the seed's every save).
      await seed("warmup");
      await cli(bin, "warmup"); // also writes the code cache
      await cli(esmBundle, "warmup");
      saves += 3;
      const s: Sample[] = [];
      const c: Sample[] = [];
      const u: Sample[] = [];
      for (let i = 0; i < opts.runs; i++) {
        // Alternate which goes first, so drift in machine load falls on both alike.
        if (i % 2 === 0) {
          s.push(await seed("clone_complete"));
          c.push(await cli(bin, "clone_complete"));
        } else {
          c.push(await cli(bin, "clone_complete"));
          s.push(await seed("clone_complete"));
        }
        u.push(await cli(esmBundle, "clone_complete"));
        saves += 3;
      }
      const r = { latencyMs, seed: summary(s), cli: summary(c), cliNoCodeCache: summary(u) };
      const ratio = Math.round((r.cli.medianMs / r.seed.medianMs) * 100) / 100;
      const goalRatio = latencyMs > 0 ? 1.0 : 1.5;
      results.push({ ...r, ratio, goalRatio, met: { time: ratio <= goalRatio, rss: r.cli.maxRssMiB <= 64 } });
      log(
        `cli-speed @${latencyMs} ms: seed ${r.seed.medianMs} ms / ${r.seed.medianRssMiB} MiB, checkpost ${r.cli.medianMs} ms / ${r.cli.medianRssMiB} MiB (×${ratio}), without code cache ${r.cliNoCodeCache.medianMs} ms`,
      );
    }
    a.setFaults({});
    // Every process really saved: one parseable checkpoint per run.
    const comments = await new ForgejoApi(new ForgejoClient({ url: forge.url, token })).listCommentsSince({ owner: "agent", repo: "work" }, issue);
    const checkpoints = comments.filter((cm) => parseComment(cm.body).kind === "checkpoint").length;
    if (checkpoints !== saves) throw new Error(`bench/cli-speed: expected ${saves} checkpoints on the issue, found ${checkpoints}`);
  } finally {
    await forge.close();
  }
  return results;
}

export function formatCliSpeed(rs: CliSpeedResult[]): string {
  const lines = [
    "| latency | seed agent: wall median / p90, CPU, peak RSS | `checkpost save`: wall median / p90, CPU, peak RSS | wall ratio (goal) | CPU ratio | ESM bundle, no code cache | goals met |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rs)
    lines.push(
      `| ${r.latencyMs ? `${r.latencyMs} ms` : "loopback"} | ${r.seed.medianMs} / ${r.seed.p90Ms} ms, ${r.seed.medianCpuMs} ms, ${r.seed.medianRssMiB} MiB | ${r.cli.medianMs} / ${r.cli.p90Ms} ms, ${r.cli.medianCpuMs} ms, ${r.cli.medianRssMiB} MiB (max ${r.cli.maxRssMiB}) | ×${r.ratio} (≤ ×${r.goalRatio}) | ×${Math.round((r.cli.medianCpuMs / r.seed.medianCpuMs) * 100) / 100} | ${r.cliNoCodeCache.medianMs} ms, ${r.cliNoCodeCache.medianCpuMs} ms CPU, ${r.cliNoCodeCache.medianRssMiB} MiB | time ${r.met.time ? "yes" : "no"}, RSS ${r.met.rss ? "yes" : "no"} |`,
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
  const out = arg("--out") ?? fileURLToPath(new URL("./results/cli-latest.json", import.meta.url));
  const results = await cliSpeed({ runs, latencies: [20, 0], log: (s) => process.stderr.write(`${s}\n`) });
  process.stdout.write(`${formatCliSpeed(results)}\n`);
  mkdirSync(dirname(out), { recursive: true });
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version, loadavg: readFileSync("/proc/loadavg", "utf8").trim() };
  writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, runs, out: relative(root, out), results }, null, 2)}\n`);
  process.stderr.write(`wrote ${relative(root, out)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
