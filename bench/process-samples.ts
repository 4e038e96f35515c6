/** What bench/cli-speed.ts and bench/python-speed.ts share: one timed process, and its summary. */
import { execFileSync } from "node:child_process";

/** One timed process (bench/measure.py's output). */
export interface Sample {
  wall_ms: number;
  /** user + sys CPU of the process: what machine load inflates least. */
  cpu_ms: number;
  maxrss_kib: number;
}

export interface ProcessSummary {
  runs: number;
  medianMs: number;
  p90Ms: number;
  medianCpuMs: number;
  medianRssMiB: number;
}

export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

const mib = (kib: number): number => Math.round((kib / 1024) * 10) / 10;

export function summarizeProcesses(xs: Sample[]): ProcessSummary {
  const wall = xs.map((x) => x.wall_ms);
  return {
    runs: xs.length,
    medianMs: Math.round(quantile(wall, 0.5)),
    p90Ms: Math.round(quantile(wall, 0.9)),
    medianCpuMs: Math.round(
      quantile(
        xs.map((x) => x.cpu_ms),
        0.5,
      ),
    ),
    medianRssMiB: mib(
      quantile(
        xs.map((x) => x.maxrss_kib),
        0.5,
      ),
    ),
  };
}

/** Peak RSS over the runs, in MiB. */
export const maxRssMiB = (xs: Sample[]): number => mib(Math.max(...xs.map((x) => x.maxrss_kib)));

/** The real interpreter behind `python3` (a pyenv shim is a shell script that would be timed too). */
export function realPython(): string {
  return execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
}
