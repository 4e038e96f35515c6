/** What a correct reader must (not) return for a body, and the checks behind the figures. */
import type { JsonValue, ParsedComment } from "../../../src/protocol/index.ts";

/** JSON equality over own enumerable keys (an own "__proto__" key counts as a key). -0 equals 0, as JSON has it. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  const ra = a as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

/** True when a parsed value's objects do not all have the ordinary prototypes JSON.parse gives. */
export function hasForeignPrototype(v: JsonValue, depth = 0): boolean {
  if (v === null || typeof v !== "object" || depth > 200) return false;
  if (Array.isArray(v)) return Object.getPrototypeOf(v) !== Array.prototype || v.some((x) => hasForeignPrototype(x, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype) return true;
  return Object.keys(v).some((k) => hasForeignPrototype(v[k] as JsonValue, depth + 1));
}

const baseline = {
  object: Object.getOwnPropertyNames(Object.prototype).length,
  array: Object.getOwnPropertyNames(Array.prototype).length,
  func: Object.getOwnPropertyNames(Function.prototype).length,
};

/** Has anything been added to the shared prototypes since this module loaded? */
export function globalPrototypesPolluted(): boolean {
  const probe: Record<string, unknown> = {};
  return (
    Object.getOwnPropertyNames(Object.prototype).length !== baseline.object ||
    Object.getOwnPropertyNames(Array.prototype).length !== baseline.array ||
    Object.getOwnPropertyNames(Function.prototype).length !== baseline.func ||
    probe["polluted"] !== undefined ||
    probe["evil"] !== undefined
  );
}

export type Field = "agent" | "session" | "phase" | "data";
/** Inclusive offsets [first, last] of the text a field is read from, the line's "\n" included. */
export type Spans = Partial<Record<Field, [number, number]>>;

/** Where agent, session, phase and the JSON block sit in a canonical (freshly formatted) body. */
export function fieldSpans(body: string): Spans {
  const spans: Spans = {};
  let offset = 0;
  let jsonStart = -1;
  const lines = body.split("\n");
  lines.forEach((line, i) => {
    const end = offset + line.length; // the "\n"
    if (i === 0) spans.agent = [offset, end];
    else if (jsonStart < 0 && line.startsWith("Phase: ")) spans.phase = [offset, end];
    else if (jsonStart < 0 && line.startsWith("Session: ")) spans.session = [offset, end];
    else if (line === "```json") jsonStart = offset;
    else if (line === "```" && jsonStart >= 0 && spans.data === undefined) spans.data = [jsonStart, end];
    offset = end + 1;
  });
  return spans;
}

/** Does a mutation of original range [lo, hi) (an insertion when lo === hi) reach the span? */
export function touches(span: [number, number], [lo, hi]: [number, number]): boolean {
  if (lo === hi) return span[0] <= lo && lo <= span[1];
  return lo <= span[1] && hi > span[0];
}

export interface Fields {
  marker: "checkpoint" | "health";
  agent: string;
  session: string;
  phase: string | null;
  data: JsonValue;
}

/** The attribution a parse result claims, or null when it claims none. */
export function claimed(p: ParsedComment): Fields | null {
  if (p.kind === "checkpoint") {
    const c = p.checkpoint;
    return { marker: "checkpoint", agent: c.agent, session: c.session, phase: c.phase, data: c.data };
  }
  if (p.kind === "health") {
    const h = p.health;
    return { marker: "health", agent: h.agent, session: h.session, phase: null, data: h.metrics };
  }
  return null;
}

/** Fields of `got` that differ from `want`, among those not touched by a mutation. */
export function misattributedFields(want: Fields, got: Fields, spans: Spans, touched: [number, number] | null): Field[] {
  const free = (f: Field) => touched !== null && spans[f] !== undefined && touches(spans[f] as [number, number], touched);
  if (want.marker !== got.marker) return free("agent") ? [] : ["agent"];
  const bad: Field[] = [];
  if (!free("agent") && want.agent !== got.agent) bad.push("agent");
  if (!free("session") && want.session !== got.session) bad.push("session");
  if (!free("phase") && want.phase !== got.phase) bad.push("phase");
  if (!free("data") && !jsonEqual(want.data, got.data)) bad.push("data");
  return bad;
}
