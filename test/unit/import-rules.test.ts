// Import rules of src/ (issue 20, items 1 and 5), checked on every `npm test`: the pure core does no I/O
// and reads no clock or environment; the composition root (src/app/) alone wires the embedded forge,
// reads the environment and is imported by nothing; src/ has no import cycles. docs/architecture.md
// explains the rules.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph } from "../helpers/import-graph.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const graph = importGraph(root);

/** The pure core: no I/O, the clock passed in. A new pure module goes here too. */
const CORE = ["src/protocol/", "src/projection/", "src/dashboard/", "src/util/", "src/snapshot/core/"];
const inCore = (f: string) => CORE.some((d) => f.startsWith(d));
/** What the core may import besides itself: checkpost's typed errors, zod, hashing. */
const CORE_MAY_IMPORT = new Set(["src/errors.ts", "zod", "node:crypto"]);
const IO_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|http2|tls|dgram|child_process|worker_threads)$/;

const inApp = (f: string) => f.startsWith("src/app/");
/** The settings schemas: read by the root, imported elsewhere only for their types. */
const inConfig = (f: string) => f.startsWith("src/config/");

/** Reads of the clock and the environment in a file, found in its syntax tree (comments and strings do not count). */
function impureReads(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(`${root}${file}`, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const isName = (n: ts.Node, name: string) => ts.isIdentifier(n) && n.text === name;
  const visit = (n: ts.Node) => {
    if (ts.isPropertyAccessExpression(n) && isName(n.expression, "Date") && n.name.text === "now") found.push(`${file}: Date.now`);
    if (ts.isNewExpression(n) && isName(n.expression, "Date") && (n.arguments?.length ?? 0) === 0) found.push(`${file}: new Date()`);
    if (ts.isPropertyAccessExpression(n) && isName(n.expression, "process") && n.name.text === "env") found.push(`${file}: process.env`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe("import rules of src/", () => {
  it("reads src/ (the rules below are not vacuous)", () => {
    expect(graph.files.filter(inCore).length).toBeGreaterThan(40);
    expect(graph.edges.length).toBeGreaterThan(500);
  });

  it("the core imports only the core, src/errors.ts, zod and node:crypto; never fs, net or http", () => {
    const bad = graph.edges
      .filter((e) => inCore(e.from))
      .filter((e) => (e.to === null ? IO_MODULES.test(e.specifier) || !CORE_MAY_IMPORT.has(e.specifier) : !inCore(e.to) && !CORE_MAY_IMPORT.has(e.to)))
      .map((e) => `${e.from} imports ${e.specifier}`);
    expect(bad).toEqual([]);
  });

  it("the core never reads the clock (Date.now, new Date()) or the environment (process.env)", () => {
    expect(graph.files.filter(inCore).flatMap(impureReads)).toEqual([]);
  });

  it("only the composition root (src/app/) imports the embedded forge", () => {
    const importers = new Set(graph.edges.filter((e) => e.to?.startsWith("src/embedded-forge/") && !e.from.startsWith("src/embedded-forge/")).map((e) => e.from));
    expect([...importers].filter((f) => !inApp(f))).toEqual([]);
    // Not vacuous: the root does import it (the demo, `checkpost forge`).
    expect([...importers].filter(inApp).length).toBeGreaterThan(0);
  });

  it("the composition root is on top: nothing outside src/app/ imports it", () => {
    expect(graph.edges.filter((e) => e.to !== null && inApp(e.to) && !inApp(e.from)).map((e) => `${e.from} imports ${e.to}`)).toEqual([]);
  });

  it("only src/app/ reads the environment (process.env); only it runs the settings schemas of src/config/", () => {
    expect(graph.files.filter((f) => !inApp(f) && !inConfig(f)).flatMap((f) => impureReads(f).filter((r) => r.endsWith("process.env")))).toEqual([]);
    expect(
      graph.files
        .filter(inApp)
        .flatMap(impureReads)
        .some((r) => r.endsWith("process.env")),
    ).toBe(true);
    const bad = graph.edges.filter((e) => e.to !== null && inConfig(e.to) && !inApp(e.from) && !inConfig(e.from) && !e.typeOnly).map((e) => `${e.from} imports ${e.to}`);
    expect(bad).toEqual([]);
  });

  it("has no import cycles", () => {
    expect(importCycles(graph, { includeTypeOnly: false })).toEqual([]);
  });

  it("has no cycles through type-only imports either", () => {
    expect(importCycles(graph, { includeTypeOnly: true })).toEqual([]);
  });
});
