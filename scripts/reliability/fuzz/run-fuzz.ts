/** The reader's property/fuzz suite: generated, rewritten, wrapped and mutated bodies through parseComment. */
import fc from "fast-check";
import { DEFAULT_READER_LIMITS, formatCheckpoint, formatHealth, parseComment } from "../../../src/protocol/index.ts";
import type { CheckpointInput, HealthInput, JsonValue, ParsedComment } from "../../../src/protocol/index.ts";
import { checkpointInput, anyText, healthInput } from "./arbitraries.ts";
import { applyBenign, applyWrapper, benignPlan, wrapper } from "./transforms.ts";
import type { BenignPlan, Wrapper } from "./transforms.ts";
import { mutate, mutationPlan } from "./mutations.ts";
import type { MutationPlan } from "./mutations.ts";
import { claimed, fieldSpans, globalPrototypesPolluted, hasForeignPrototype, jsonEqual, misattributedFields } from "./oracle.ts";
import type { Fields } from "./oracle.ts";

export interface FuzzFigures {
  inputs: number;
  throws: number;
  misattributions: number;
  round_trip_failures: number;
  prototype_pollution: number;
  bounds_violations: number;
}
export const FUZZ_MUST_BE_ZERO = ["throws", "misattributions", "round_trip_failures", "prototype_pollution", "bounds_violations"] as const;

export interface FuzzResult {
  figures: FuzzFigures;
  /** Parse verdicts seen, e.g. {checkpoint: 41000, invalid: 30000, …}. */
  kinds: Record<string, number>;
  /** The first few failures, with the body (truncated) and why. */
  examples: string[];
}

type Source = { marker: "checkpoint"; input: CheckpointInput } | { marker: "health"; input: HealthInput };
type Case =
  | { t: "valid"; src: Source; plan: BenignPlan }
  | { t: "wrapped"; src: Source; wrapper: Wrapper; prose: string; plan: BenignPlan }
  | { t: "mutated"; src: Source; mutation: MutationPlan }
  | { t: "proto"; src: Source; json: string }
  | { t: "nest"; src: Source; depth: number; shape: "array" | "object" | "unbalanced" }
  | { t: "huge"; src: Source; variant: "data" | "multibyte-footer" | "near-limit" };

const source: fc.Arbitrary<Source> = fc.oneof(
  { weight: 3, arbitrary: checkpointInput.map((input) => ({ marker: "checkpoint" as const, input })) },
  { weight: 1, arbitrary: healthInput.map((input) => ({ marker: "health" as const, input })) },
);

const PROTO_JSON = [
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '{"a": {"__proto__": {"polluted": 1}, "b": [{"__proto__": null}]}, "constructor": 1}',
  '{"__proto__": []}',
  '{"__proto__": 1, "__proto__": {"evil": 2}}',
  '{"prototype": {"polluted": true}, "toString": "x", "hasOwnProperty": 0}',
  '[{"__proto__": {"polluted": true}}]',
];

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  { weight: 150, arbitrary: fc.record({ t: fc.constant("valid" as const), src: source, plan: benignPlan }) },
  { weight: 50, arbitrary: fc.record({ t: fc.constant("wrapped" as const), src: source, wrapper, prose: anyText(30), plan: benignPlan }) },
  { weight: 190, arbitrary: fc.record({ t: fc.constant("mutated" as const), src: source, mutation: mutationPlan }) },
  { weight: 25, arbitrary: fc.record({ t: fc.constant("proto" as const), src: source, json: fc.constantFrom(...PROTO_JSON) }) },
  {
    weight: 30,
    arbitrary: fc.record({
      t: fc.constant("nest" as const),
      src: source,
      depth: fc.oneof(fc.integer({ min: 2, max: 70 }), fc.integer({ min: 60, max: 5000 }), fc.integer({ min: 5000, max: 200_000 })),
      shape: fc.constantFrom("array" as const, "object" as const, "unbalanced" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("huge" as const), src: source, variant: fc.constantFrom("data" as const, "multibyte-footer" as const, "near-limit" as const) }) },
);

function format(src: Source): string {
  return src.marker === "checkpoint" ? formatCheckpoint(src.input) : formatHealth(src.input);
}

function fieldsOf(src: Source): Fields {
  return src.marker === "checkpoint"
    ? { marker: "checkpoint", agent: src.input.agent, session: src.input.session, phase: src.input.phase, data: src.input.data }
    : { marker: "health", agent: src.input.agent, session: src.input.session, phase: null, data: src.input.metrics as JsonValue };
}

function replaceJson(body: string, json: string): string {
  // Anchored to whole lines: a header value may itself read "```json".
  return body.replace(/^```json\n[\s\S]*?\n```$/m, () => "```json\n" + json + "\n```");
}

function nested(depth: number, shape: "array" | "object" | "unbalanced"): string {
  // Depth counts the outer object: {"k": <depth-1 levels>}.
  const inner = depth - 1;
  if (shape === "array") return `{"k": ${"[".repeat(inner)}${"]".repeat(inner)}}`;
  if (shape === "object") return `{"k": ${'{"a": '.repeat(inner)}null${"}".repeat(inner)}}`;
  return `{"k": ${"[".repeat(inner)}`;
}

/** Verdict-independent expectations. */
type Expect =
  | { e: "exact"; src: Source }
  | { e: "not-protocol" }
  | { e: "mutated"; want: Fields; spans: ReturnType<typeof fieldSpans>; touched: [number, number] }
  | { e: "data"; want: Fields }
  | { e: "rejected" };

function build(c: Case): { body: string; expect: Expect } {
  const canonical = format(c.src);
  const want = fieldsOf(c.src);
  switch (c.t) {
    case "valid":
      return { body: applyBenign(canonical, c.plan), expect: { e: "exact", src: c.src } };
    case "wrapped":
      return { body: applyWrapper(applyBenign(canonical, { ...c.plan, leadingBlankLines: 0, bom: false }), c.wrapper, c.prose), expect: { e: "not-protocol" } };
    case "mutated": {
      const m = mutate(canonical, c.mutation);
      return { body: m.body, expect: { e: "mutated", want, spans: fieldSpans(canonical), touched: m.touched } };
    }
    case "proto":
      return { body: replaceJson(canonical, c.json), expect: { e: "data", want: { ...want, data: JSON.parse(c.json) as JsonValue } } };
    case "nest": {
      const json = nested(c.depth, c.shape);
      const ok = c.shape !== "unbalanced" && c.depth <= DEFAULT_READER_LIMITS.maxJsonDepth;
      return { body: replaceJson(canonical, json), expect: ok ? { e: "data", want: { ...want, data: JSON.parse(json) as JsonValue } } : { e: "rejected" } };
    }
    case "huge": {
      const limit = DEFAULT_READER_LIMITS.maxBodyBytes;
      if (c.variant === "multibyte-footer") {
        // Under the limit in UTF-16 units, over it in UTF-8 bytes.
        return { body: `${canonical}\n${"é".repeat(Math.ceil(limit / 2) + 10)}`, expect: { e: "rejected" } };
      }
      const room = limit - Buffer.byteLength(canonical, "utf8") - 1;
      if (c.variant === "near-limit") return { body: `${canonical}\n${"x".repeat(Math.max(0, room))}`, expect: { e: "exact", src: c.src } };
      return { body: `${canonical}\n${"x".repeat(room + 1 + (limit >> 3))}`, expect: { e: "rejected" } };
    }
  }
}

function exactProblems(src: Source, p: ParsedComment): { mis: string[]; trip: string[] } {
  const got = claimed(p);
  if (!got) return { mis: [], trip: [`parsed as ${p.kind}${p.kind === "invalid" ? `: ${p.error}` : ""}`] };
  const mis = misattributedFields(fieldsOf(src), got, {}, null);
  const trip: string[] = [];
  if (src.marker === "checkpoint" && p.kind === "checkpoint") {
    const i = src.input;
    const c = p.checkpoint;
    if (c.version !== "1.0") trip.push("version");
    if (c.timestamp !== i.timestamp) trip.push("timestamp");
    if (c.id !== i.id) trip.push("id");
    if (c.seq !== i.seq) trip.push("seq");
    if (c.epoch !== i.epoch) trip.push("epoch");
    if (c.signature !== i.signature) trip.push("signature");
  } else if (src.marker === "health" && p.kind === "health") {
    const i = src.input;
    const h = p.health;
    if (h.timestamp !== i.timestamp) trip.push("timestamp");
    if (h.status !== (i.status ?? "Active")) trip.push("status");
    if (h.nextCheck !== (i.nextCheck ?? "in 10 iterations")) trip.push("nextCheck");
  }
  return { mis: mis.map((f) => `field ${f}`), trip };
}

/** Run `count` generated bodies through the reader with a fixed seed. */
export function runFuzz(options: { count: number; seed: number; maxExamples?: number }): FuzzResult {
  const figures: FuzzFigures = { inputs: 0, throws: 0, misattributions: 0, round_trip_failures: 0, prototype_pollution: 0, bounds_violations: 0 };
  const kinds: Record<string, number> = {};
  const examples: string[] = [];
  const note = (figure: keyof FuzzFigures, c: Case, body: string, why: string) => {
    figures[figure]++;
    if (examples.length < (options.maxExamples ?? 10)) examples.push(`${figure} [${c.t}] ${why}\n  body: ${JSON.stringify(body.length > 600 ? `${body.slice(0, 600)}…` : body)}`);
  };

  const run = fc.check(
    fc.property(caseArb, (c) => {
      const { body, expect } = build(c);
      figures.inputs++;
      let p: ParsedComment;
      try {
        p = parseComment(body);
      } catch (e) {
        note("throws", c, body, e instanceof Error ? e.message : String(e));
        return true;
      }
      kinds[p.kind] = (kinds[p.kind] ?? 0) + 1;
      const got = claimed(p);
      if (globalPrototypesPolluted() || (got !== null && hasForeignPrototype(got.data))) note("prototype_pollution", c, body, "a prototype changed");
      switch (expect.e) {
        case "exact": {
          const { mis, trip } = exactProblems(expect.src, p);
          if (mis.length) note("misattributions", c, body, mis.join(", "));
          else if (trip.length) note("round_trip_failures", c, body, trip.join(", "));
          break;
        }
        case "not-protocol":
          if (got) note("misattributions", c, body, `a mention read as a ${got.marker}`);
          break;
        case "mutated":
          if (got) {
            const bad = misattributedFields(expect.want, got, expect.spans, expect.touched);
            if (bad.length) note("misattributions", c, body, `untouched ${bad.join(", ")} changed (touched ${expect.touched.join("–")})`);
          }
          break;
        case "data":
          if (!got) note("round_trip_failures", c, body, `parsed as ${p.kind}${p.kind === "invalid" ? `: ${p.error}` : ""}`);
          else {
            const bad = misattributedFields(expect.want, got, {}, null);
            if (bad.length) note("misattributions", c, body, bad.join(", "));
          }
          break;
        case "rejected":
          if (got) note("bounds_violations", c, body, `accepted as a ${got.marker}`);
          break;
      }
      return true;
    }),
    { numRuns: options.count, seed: options.seed },
  );
  if (run.failed)
    throw new Error(
      `fuzz generator failed after ${run.numRuns} runs: ${run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance)}\ncounterexample: ${JSON.stringify(run.counterexample)?.slice(0, 2000)}`,
    );
  return { figures, kinds, examples };
}

export { jsonEqual };
