/**
 * Summarise a V8 heap snapshot (from `v8.writeHeapSnapshot`, `--heapsnapshot-signal`, or the bench's
 * BENCH_HEAP_DIR): self size by constructor, and the largest holders by retained size (dominator tree,
 * Cooper–Harvey–Kennedy) with the chain of dominators that keeps each alive.
 *
 *   node --import tsx bench/heap-summary.ts FILE.heapsnapshot [--top 25]
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const MB = 1024 * 1024;

export function summarise(file: string, top = 25): string {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const { meta } = s.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf("type");
  const nName = meta.node_fields.indexOf("name");
  const nSize = meta.node_fields.indexOf("self_size");
  const nEdges = meta.node_fields.indexOf("edge_count");
  const eType = meta.edge_fields.indexOf("type");
  const eName = meta.edge_fields.indexOf("name_or_index");
  const eTo = meta.edge_fields.indexOf("to_node");
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf("weak");
  const n = s.nodes.length / nf;

  const firstEdge = new Uint32Array(n + 1);
  for (let i = 0, e = 0; i < n; i++) {
    firstEdge[i] = e;
    e += (s.nodes[i * nf + nEdges] as number) * ef;
    if (i === n - 1) firstEdge[n] = e;
  }
  const label = (i: number): string => {
    const t = nodeTypes[s.nodes[i * nf + nType] as number] ?? "?";
    const name = s.strings[s.nodes[i * nf + nName] as number] ?? "";
    if (t === "object" || t === "closure" || t === "native") return `${t === "object" ? "" : `(${t}) `}${name.slice(0, 60)}`;
    return `(${t})`;
  };
  const size = (i: number) => s.nodes[i * nf + nSize] as number;

  // Reverse post-order from the root (node 0), over strong edges only.
  const order = new Int32Array(n).fill(-1);
  const rpo: number[] = [];
  const stack: number[] = [0];
  const iter = new Uint32Array(n);
  const seen = new Uint8Array(n);
  seen[0] = 1;
  for (let i = 0; i < n; i++) iter[i] = firstEdge[i] as number;
  const post: number[] = [];
  while (stack.length) {
    const v = stack[stack.length - 1] as number;
    const end = firstEdge[v + 1] as number;
    let pushed = false;
    while ((iter[v] as number) < end) {
      const e = iter[v] as number;
      iter[v] = e + ef;
      if (s.edges[e + eType] === weak) continue;
      const w = (s.edges[e + eTo] as number) / nf;
      if (!seen[w]) {
        seen[w] = 1;
        stack.push(w);
        pushed = true;
        break;
      }
    }
    if (!pushed && (iter[v] as number) >= end) {
      stack.pop();
      post.push(v);
    }
  }
  for (let i = post.length - 1; i >= 0; i--) {
    order[post[i] as number] = rpo.length;
    rpo.push(post[i] as number);
  }
  // Predecessors (strong edges, reachable nodes).
  const predCount = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v] as number; e < (firstEdge[v + 1] as number); e += ef) {
      if (s.edges[e + eType] === weak) continue;
      predCount[(s.edges[e + eTo] as number) / nf] = (predCount[(s.edges[e + eTo] as number) / nf] as number) + 1;
    }
  }
  const predStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) predStart[i + 1] = (predStart[i] as number) + (predCount[i] as number);
  const preds = new Uint32Array(predStart[n] as number);
  const fill = predStart.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v] as number; e < (firstEdge[v + 1] as number); e += ef) {
      if (s.edges[e + eType] === weak) continue;
      const w = (s.edges[e + eTo] as number) / nf;
      preds[fill[w] as number] = v;
      fill[w] = (fill[w] as number) + 1;
    }
  }
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while ((order[a] as number) > (order[b] as number)) a = idom[a] as number;
      while ((order[b] as number) > (order[a] as number)) b = idom[b] as number;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = 1; k < rpo.length; k++) {
      const v = rpo[k] as number;
      let d = -1;
      for (let p = predStart[v] as number; p < (predStart[v + 1] as number); p++) {
        const u = preds[p] as number;
        if (idom[u] === -1) continue;
        d = d === -1 ? u : intersect(u, d);
      }
      if (d !== -1 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(n);
  for (let k = rpo.length - 1; k >= 0; k--) {
    const v = rpo[k] as number;
    retained[v] = (retained[v] as number) + size(v);
    if (v !== 0) retained[idom[v] as number] = (retained[idom[v] as number] as number) + (retained[v] as number);
  }

  const bySelf = new Map<string, { count: number; self: number }>();
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!seen[i]) continue;
    const k = label(i);
    const r = bySelf.get(k) ?? { count: 0, self: 0 };
    r.count++;
    r.self += size(i);
    total += size(i);
    bySelf.set(k, r);
  }
  const edgeName = (from: number, to: number): string => {
    for (let e = firstEdge[from] as number; e < (firstEdge[from + 1] as number); e += ef) {
      if ((s.edges[e + eTo] as number) / nf !== to) continue;
      const t = edgeTypes[s.edges[e + eType] as number];
      const nm = s.edges[e + eName] as number;
      return t === "element" || t === "hidden" ? `[${nm}]` : String(s.strings[nm] ?? nm);
    }
    return "?";
  };
  const chain = (v: number): string => {
    const parts: string[] = [];
    for (let x = v, hops = 0; x !== 0 && hops < 8; x = idom[x] as number, hops++) parts.push(`${label(idom[x] as number)}.${edgeName(idom[x] as number, x)}`);
    return parts.reverse().join(" → ");
  };
  // Largest holders: nodes with the largest retained size whose dominator retains under twice as much
  // (so the report names the object that holds the memory, not every wrapper above it).
  const holders: number[] = [];
  for (let v = 1; v < n; v++) {
    if (!seen[v] || (retained[v] as number) < 256 * 1024) continue;
    const d = idom[v] as number;
    if (d !== 0 && (retained[d] as number) < 1.05 * (retained[v] as number) && size(d) < 1024) continue;
    holders.push(v);
  }
  holders.sort((a, b) => (retained[b] as number) - (retained[a] as number));

  const lines = [`${file}: ${n.toLocaleString("en-US")} nodes, ${(total / MB).toFixed(1)} MiB reachable (self sizes)`, "", "self size by constructor:"];
  for (const [k, r] of [...bySelf].sort((a, b) => b[1].self - a[1].self).slice(0, top)) lines.push(`  ${(r.self / MB).toFixed(2).padStart(7)} MiB ${String(r.count).padStart(8)}  ${k}`);
  lines.push("", "largest holders (retained):");
  for (const v of holders.slice(0, top)) lines.push(`  ${((retained[v] as number) / MB).toFixed(2).padStart(7)} MiB  ${label(v)}  ← ${chain(v)}`);
  // What the largest holder is made of: self sizes of the nodes it dominates, by constructor.
  const big = holders.find((v) => label(v) !== "SessionTracker" && label(v) !== "(synthetic)");
  if (big !== undefined) {
    const parts = new Map<string, { count: number; self: number }>();
    for (let v = 0; v < n; v++) {
      if (!seen[v]) continue;
      let x = v;
      for (let hops = 0; x !== 0 && x !== big && hops < 64; hops++) x = idom[x] as number;
      if (x !== big) continue;
      const k = label(v);
      const r = parts.get(k) ?? { count: 0, self: 0 };
      r.count++;
      r.self += size(v);
      parts.set(k, r);
    }
    lines.push("", `inside the largest holder (${label(big)}, ${((retained[big] as number) / MB).toFixed(2)} MiB):`);
    for (const [k, r] of [...parts].sort((a, b) => b[1].self - a[1].self).slice(0, 12)) lines.push(`  ${(r.self / MB).toFixed(2).padStart(7)} MiB ${String(r.count).padStart(8)}  ${k}`);
  }
  return lines.join("\n");
}

const argv = process.argv.slice(2);
const file = argv.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: node --import tsx bench/heap-summary.ts FILE.heapsnapshot [--top 25]");
  process.exit(2);
}
const topArg = argv.indexOf("--top");
console.log(summarise(file, topArg >= 0 ? Number(argv[topArg + 1]) : 25));
