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

/** The clock: with src/app/, the one module that reads the time (issue 31, item 6). */
const CLOCK = "src/clock.ts";
/**
 * Files that still read the time themselves, each with why. Their owners change them this round (see the
 * round's ORDER.md), so issue 31 left them out of its change to keep the merge small; the lead closes the
 * list once those land (the test below fails on an entry that no longer reads the clock).
 */
const CLOCK_READS_ALLOWED = [
  // "Forge fidelity, round two" owns the embedded forge; its clock is already injectable (ForgeOptions.now, setClock).
  "src/embedded-forge/",
];
const clockAllowed = (f: string) => CLOCK_READS_ALLOWED.some((a) => (a.endsWith("/") ? f.startsWith(a) : f === a));

/** Where Forgejo's names may appear (issue 31, item 1): its adapter, the embedded forge, the composition root. */
const KNOWS_FORGEJO = ["src/forgejo-client/", "src/embedded-forge/", "src/app/"];
/** For good: the library's public surface (`import … from "checkpost"`) re-exports the adapter for its users. */
const FORGEJO_NAMES_FOR_GOOD = ["src/index.ts"];
const mayNameForgejo = (f: string) => KNOWS_FORGEJO.some((d) => f.startsWith(d)) || FORGEJO_NAMES_FOR_GOOD.includes(f);
/** The host registry: one line per host, so it imports each adapter's HostDefinition (and names nothing else of it). */
const HOST_REGISTRY = "src/hosts/index.ts";

/** Forgejo's own names in a file's syntax tree: its error classes, and its webhook headers (a string starting x-forgejo-). */
function forgejoNames(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(`${root}${file}`, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n) && (n.text === "ForgejoApiError" || n.text === "ForgejoResponseError")) found.push(`${file}: ${n.text}`);
    if (ts.isStringLiteralLike(n) && /^x-forgejo-/i.test(n.text)) found.push(`${file}: header ${n.text}`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return [...new Set(found)];
}

/**
 * The layers of src/, lowest first (issue 31): a file imports only from its own layer or a lower one, so
 * no import runs upward. A new folder goes in the layer it belongs to (the test names it until it does).
 * Files at the top of src/ are placed one by one: the errors and the clock at the bottom, the library's
 * public surface (index.ts) just under the composition root.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["src/errors.ts", "src/clock.ts", "src/util", "src/protocol", "src/protocol/kinds", "src/protocol/controls", "src/ports", "src/log", "src/snapshot/core"],
  ["src/projection"],
  ["src/dashboard"],
  ["src/chain"],
  ["src/session-client"],
  // Snapshots (the "checkpost for LLM agents" issue, landing this round): the pure core, then the shell.
  ["src/snapshot"],
  ["src/compaction"],
  ["src/bot-state", "src/bot-state/postgres", "src/bot-state/postgres/ops"],
  ["src/forgejo-client"],
  // The host registry: one line per adapter; the roots pick from it.
  ["src/hosts"],
  // The bot's parts by job (issue 31, item 5), beside its root (the tracker, its factory and the wiring).
  ["src/bot", "src/bot/alerts", "src/bot/api", "src/bot/controls", "src/bot/ingest", "src/bot/replicas", "src/bot/upkeep"],
  ["src/config"],
  ["src/cli", "src/cli/commands", "src/cli/commands/doctor"],
  // The MCP server (same issue as snapshots) drives the CLI's commands.
  ["src/mcp"],
  ["src/embedded-forge", "src/embedded-forge/routes"],
  // The library's public surface; the root's package entry re-exports it.
  ["src/index.ts"],
  ["src/app"],
];
const layerOf = (f: string) => {
  const own = LAYERS.findIndex((l) => l.includes(f));
  return own >= 0 ? own : LAYERS.findIndex((l) => l.includes(f.slice(0, f.lastIndexOf("/"))));
};
/**
 * Imports that still run upward, each with why; the lead closes the list when the move lands (an entry
 * that no longer exists fails the test).
 */
const UPWARD_ALLOWED: string[] = [];

/**
 * The bot's assembly (issue 31, item 3): the tracker, its factory, the registry and the bot's factory. The
 * parts under src/bot/<job>/ take the narrow ports they use (the factory, assemble-tracker.ts, builds
 * them) and never import these, type-only imports included: a part that needs another issue's tracker
 * takes WatchedIssue (src/bot/tracker-ports.ts).
 */
const BOT_ASSEMBLY = ["src/bot/session-tracker.ts", "src/bot/assemble-tracker.ts", "src/bot/tracker-registry.ts", "src/bot/create-bot.ts"];
const inBotPart = (f: string) => /^src\/bot\/[^/]+\//.test(f);

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

  it("only the composition root and the clock (src/clock.ts) read the time: every other module takes a clock", () => {
    const reads = graph.files.filter((f) => !inApp(f) && f !== CLOCK).flatMap((f) => impureReads(f).filter((r) => !r.endsWith("process.env")));
    const unlisted = reads.filter((r) => !clockAllowed(r.slice(0, r.indexOf(":"))));
    expect(unlisted, "take the clock from the caller (src/clock.ts: Clock, MsClock; systemClock/systemMs as the default)").toEqual([]);
    // Not vacuous: the clock itself reads the time.
    expect(impureReads(CLOCK).length).toBeGreaterThan(0);
    // The list closes: an entry that reads no clock any more fails until it is taken off.
    const stale = CLOCK_READS_ALLOWED.filter((a) => !reads.some((r) => r.startsWith(a)));
    expect(stale, "these no longer read the clock: remove them from CLOCK_READS_ALLOWED in test/unit/import-rules.test.ts").toEqual([]);
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

  it("only the Forgejo adapter, the embedded forge and the root know Forgejo: its client, errors and headers", () => {
    const imports = graph.edges
      .filter((e) => e.to?.startsWith("src/forgejo-client/") && !mayNameForgejo(e.from))
      .filter((e) => !(e.from === HOST_REGISTRY && e.to === "src/forgejo-client/forgejo-host.ts"))
      .map((e) => `${e.from}: imports ${e.specifier}`);
    const named = graph.files.filter((f) => !mayNameForgejo(f)).flatMap(forgejoNames);
    expect([...imports, ...named], "outside src/forgejo-client/, catch HostError by its reason and take an IssueHost (src/ports/issue-host.ts); read the webhook headers GitHub defined").toEqual([]);
    // Not vacuous: the adapter does name them.
    expect(graph.files.filter((f) => f.startsWith("src/forgejo-client/")).flatMap(forgejoNames).length).toBeGreaterThan(0);
    expect(forgejoNames("src/embedded-forge/webhooks.ts").some((r) => /header x-forgejo-/i.test(r))).toBe(true);
  });

  it("every folder has a layer, and no import runs upward (type-only ones included)", () => {
    expect(
      graph.files.filter((f) => layerOf(f) < 0),
      "put these files' folders in LAYERS in test/unit/import-rules.test.ts",
    ).toEqual([]);
    const upward = [...new Set(graph.edges.filter((e) => e.to !== null && graph.files.includes(e.to) && layerOf(e.from) < layerOf(e.to)).map((e) => `${e.from} → ${e.to}`))];
    expect(
      upward.filter((u) => !UPWARD_ALLOWED.includes(u)),
      "an import from a lower layer to a higher one: move the code down, or pass it in (LAYERS in test/unit/import-rules.test.ts)",
    ).toEqual([]);
    expect(
      UPWARD_ALLOWED.filter((a) => !upward.includes(a)),
      "no longer upward: remove from UPWARD_ALLOWED",
    ).toEqual([]);
  });

  it("no part of the bot (src/bot/<job>/) imports the tracker, its factory, the registry or the bot's factory", () => {
    const bad = graph.edges.filter((e) => inBotPart(e.from) && e.to !== null && BOT_ASSEMBLY.includes(e.to)).map((e) => `${e.from} imports ${e.to}`);
    expect(bad, "take a narrow port (an interface of the part's own, or WatchedIssue in src/bot/tracker-ports.ts), built by src/bot/assemble-tracker.ts").toEqual([]);
    // Not vacuous: there are parts, and the factory does assemble the tracker from them.
    expect(graph.files.filter(inBotPart).length).toBeGreaterThan(20);
    const assembled = graph.edges.filter((e) => e.from === "src/bot/assemble-tracker.ts" && e.to !== null && inBotPart(e.to)).map((e) => e.to);
    expect(new Set(assembled.map((f) => f?.split("/")[2]))).toEqual(new Set(["alerts", "controls", "ingest", "replicas", "upkeep"]));
  });

  it("has no import cycles", () => {
    expect(importCycles(graph, { includeTypeOnly: false })).toEqual([]);
  });

  it("has no cycles through type-only imports either", () => {
    expect(importCycles(graph, { includeTypeOnly: true })).toEqual([]);
  });
});
