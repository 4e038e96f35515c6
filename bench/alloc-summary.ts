/**
 * Summarise a sampled allocation profile (`.heapprofile`, HeapProfiler.stopSampling): bytes allocated
 * by function (self) and by package or source file, garbage included when sampled so.
 *
 *   node --import tsx bench/alloc-summary.ts FILE.heapprofile [--top 25]
 */
import { readFileSync } from "node:fs";
import { where } from "./profile-where.ts";

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

export function summariseAlloc(file: string, top = 25): string {
  const root = (JSON.parse(readFileSync(file, "utf8")) as { head: Node }).head;
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  let total = 0;
  const walk = (n: Node) => {
    if (n.selfSize) {
      const f = `${n.callFrame.functionName || "(anonymous)"}  ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
      fn.set(f, (fn.get(f) ?? 0) + n.selfSize);
      mod.set(where(n.callFrame.url), (mod.get(where(n.callFrame.url)) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children) walk(c);
  };
  walk(root);
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${(v / 1048576).toFixed(1).padStart(9)} MiB ${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
      .join("\n");
  return `${file}: ${(total / 1048576).toFixed(1)} MiB sampled\n\nby package / source file:\n${rows(mod)}\n\nby function:\n${rows(fn)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const t = args.indexOf("--top");
  const file = args.find((a, i) => !a.startsWith("--") && i !== t + 1);
  if (!file) throw new Error("usage: alloc-summary.ts FILE.heapprofile [--top N]");
  process.stdout.write(summariseAlloc(file, t >= 0 ? Number(args[t + 1]) : 25));
}
