/**
 * One node type of a V8 heap snapshot, by name and by what points at it (the retaining edge): for what
 * bench/heap-summary.ts shows only as "(hidden)", "(number)" or "(string)". Found with it: ~47,000
 * `system / PropertyArray`s held by the projection's Helds through `.properties` (a field added after
 * the object was made).
 *
 *   node --import tsx bench/heap-retainers.ts FILE.heapsnapshot [hidden|number|string|object|…]
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export function retainers(file: string, type = "hidden", top = 10): string {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const { meta } = s.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [nType, nName, nSize, nEdges] = ["type", "name", "self_size", "edge_count"].map((f) => meta.node_fields.indexOf(f)) as [number, number, number, number];
  const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const types = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const n = s.nodes.length / nf;
  const typeOf = (i: number) => types[s.nodes[i * nf + nType] as number];
  const nameOf = (i: number) => s.strings[s.nodes[i * nf + nName] as number] ?? "";
  const byName = new Map<string, { count: number; bytes: number }>();
  const byEdge = new Map<string, number>();
  for (let i = 0, e = 0; i < n; i++) {
    if (typeOf(i) === type) {
      const k = nameOf(i).slice(0, 50);
      const v = byName.get(k) ?? { count: 0, bytes: 0 };
      v.count++;
      v.bytes += s.nodes[i * nf + nSize] as number;
      byName.set(k, v);
    }
    for (let k = 0; k < (s.nodes[i * nf + nEdges] as number); k++, e += ef) {
      const to = (s.edges[e + eTo] as number) / nf;
      if (typeOf(to) !== type) continue;
      const et = edgeTypes[s.edges[e + eType] as number];
      const edge = et === "element" || et === "hidden" ? `[${et}]` : (s.strings[s.edges[e + eName] as number] ?? "?");
      const key = `${typeOf(i)} ${nameOf(i).slice(0, 40)} .${edge}`;
      byEdge.set(key, (byEdge.get(key) ?? 0) + 1);
    }
  }
  const names = [...byName]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, top)
    .map(([k, v]) => `${(v.bytes / 1048576).toFixed(2).padStart(8)} MiB ${String(v.count).padStart(8)}  ${k}`);
  const edges = [...byEdge]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, c]) => `${String(c).padStart(8)}  ${k}`);
  return `${file}: nodes of type "${type}"\n\nby name:\n${names.join("\n")}\n\nby retaining edge (from node type, name .edge):\n${edges.join("\n")}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, type] = process.argv.slice(2);
  if (!file) throw new Error("usage: heap-retainers.ts FILE.heapsnapshot [type]");
  process.stdout.write(retainers(file, type));
}
