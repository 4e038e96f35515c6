/**
 * Summarise a `.cpuprofile` (node --cpu-prof): self time by function and by package or source folder,
 * optionally only inside a window of the run (`--from`/`--to`, ms from the profile's start).
 *
 *   node --import tsx bench/cpu-summary.ts FILE.cpuprofile [--top 25] [--from MS] [--to MS]
 */
import { readFileSync } from "node:fs";
import { where } from "./profile-where.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export function summariseCpu(file: string, o: { top?: number; fromMs?: number; toMs?: number } = {}): string {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  let t = 0;
  let total = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    t += dt;
    if ((o.fromMs !== undefined && t < o.fromMs) || (o.toMs !== undefined && t > o.toMs)) continue;
    const n = byId.get(p.samples[i] as number);
    if (!n) continue;
    const name = n.callFrame.functionName || "(anonymous)";
    total += dt;
    if (name === "(idle)") {
      idle += dt;
      continue;
    }
    const w = where(n.callFrame.url);
    const key = `${name}  ${w}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ""}`;
    fn.set(key, (fn.get(key) ?? 0) + dt);
    mod.set(w, (mod.get(w) ?? 0) + dt);
  }
  const busy = total - idle;
  const pct = (x: number) => `${((100 * x) / Math.max(busy, 1e-9)).toFixed(1).padStart(5)} %`;
  const top = o.top ?? 25;
  const lines = [`${file}: ${(total / 1000).toFixed(2)} s sampled, idle ${(idle / 1000).toFixed(2)} s, busy ${(busy / 1000).toFixed(2)} s`, "", "self time by package / source file:"];
  for (const [k, v] of [...mod].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${v.toFixed(0).padStart(7)} ms ${pct(v)}  ${k}`);
  lines.push("", "self time by function:");
  for (const [k, v] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${v.toFixed(0).padStart(7)} ms ${pct(v)}  ${k}`);
  return lines.join("\n");
}

const argv = process.argv.slice(2);
const file = argv.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
if (!file) {
  console.error("usage: node --import tsx bench/cpu-summary.ts FILE.cpuprofile [--top 25] [--from MS] [--to MS]");
  process.exit(2);
}
const num = (name: string) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : undefined);
const fromMs = num("--from");
const toMs = num("--to");
console.log(summariseCpu(file, { top: num("--top") ?? 25, ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}) }));
