/**
 * Mutations of a canonical body, each with the range of the original it
 * touched, so the oracle can demand that untouched fields read back unchanged.
 */
import fc from "fast-check";

export interface Mutated {
  body: string;
  /** Half-open range of original offsets the mutation touched; an insertion at p is [p, p]. */
  touched: [number, number];
  what: string;
}

const INSERTS = [
  "\n[CHECKPOINT] mallory\n",
  "[CHECKPOINT] mallory\n",
  "\n[HEALTH] mallory\n",
  "\nSession: other\n",
  "\nPhase: evil\n",
  "\nEpoch: 99\n",
  "\nSeq: 1\n",
  '\n```json\n{"evil": true}\n```\n',
  "\n```json\n",
  "\n```\n",
  "\n---\n",
  "\n> [CHECKPOINT] quoted\n",
  "\nNext check: soon\n",
  "\nVersion: 2.0\n",
  "\r",
  "\u0000",
  "\ufeff",
  '"__proto__": {"polluted": true}, ',
  '\n  "__proto__": {"polluted": true},\n',
];

const SPECIAL_UNITS = ["\n", "\r", ":", "`", "-", "[", "]", "{", "}", '"', "\\", " ", "\u0000", "\ud800", "\u2028", "é", "0", "9"];

export type MutationPlan =
  | { op: "flip-char"; pos: number; unit: string }
  | { op: "flip-byte"; pos: number; bit: number }
  | { op: "truncate"; pos: number }
  | { op: "delete"; pos: number; len: number }
  | { op: "insert"; pos: number; text: string }
  | { op: "duplicate-line"; from: number; to: number }
  | { op: "multi"; plans: MutationPlan[] };

const pos = fc.nat({ max: 1 << 20 });
const single: fc.Arbitrary<MutationPlan> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("flip-char" as const),
      pos,
      unit: fc.oneof(
        fc.constantFrom(...SPECIAL_UNITS),
        fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("flip-byte" as const), pos, bit: fc.nat({ max: 7 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("truncate" as const), pos }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), pos, len: fc.integer({ min: 1, max: 64 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("insert" as const), pos, text: fc.constantFrom(...INSERTS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("duplicate-line" as const), from: pos, to: pos }) },
);
export const mutationPlan: fc.Arbitrary<MutationPlan> = fc.oneof(
  { weight: 5, arbitrary: single },
  { weight: 1, arbitrary: fc.array(single, { minLength: 2, maxLength: 4 }).map((plans) => ({ op: "multi" as const, plans })) },
);

/** Byte offset → index of the UTF-16 unit where that byte's code point starts. */
function charIndexOfByte(s: string, byte: number): number {
  let b = 0;
  let i = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (b + len > byte) return i;
    b += len;
    i += ch.length;
  }
  return s.length;
}

/** Apply one plan; positions are taken modulo the body length. */
export function mutate(body: string, plan: MutationPlan): Mutated {
  const n = body.length;
  switch (plan.op) {
    case "flip-char": {
      const p = plan.pos % n;
      return { body: body.slice(0, p) + plan.unit + body.slice(p + 1), touched: [p, p + 1], what: `flip-char@${p}` };
    }
    case "flip-byte": {
      // Lone surrogates have no UTF-8 form: flip a code unit instead of re-encoding them all to U+FFFD.
      if (Buffer.from(body, "utf8").toString("utf8") !== body) return mutate(body, { op: "flip-char", pos: plan.pos, unit: "\ufffd" });
      const bytes = Buffer.from(body, "utf8");
      const p = plan.pos % bytes.length;
      bytes[p] = (bytes[p] as number) ^ (1 << plan.bit);
      const c = charIndexOfByte(body, p);
      // A broken UTF-8 sequence decodes to U+FFFD around the flipped code point only.
      return { body: new TextDecoder("utf-8", { fatal: false }).decode(bytes), touched: [Math.max(0, c - 2), c + 3], what: `flip-byte@${p}` };
    }
    case "truncate": {
      const p = plan.pos % n;
      return { body: body.slice(0, p), touched: [p, n], what: `truncate@${p}` };
    }
    case "delete": {
      const p = plan.pos % n;
      return { body: body.slice(0, p) + body.slice(p + plan.len), touched: [p, p + plan.len], what: `delete@${p}+${plan.len}` };
    }
    case "insert": {
      const p = plan.pos % (n + 1);
      return { body: body.slice(0, p) + plan.text + body.slice(p), touched: [p, p], what: `insert@${p}:${JSON.stringify(plan.text)}` };
    }
    case "duplicate-line": {
      const lines = body.split("\n");
      const from = plan.from % lines.length;
      const to = plan.to % (lines.length + 1);
      const offset = lines.slice(0, to).reduce((s, l) => s + l.length + 1, 0);
      const copy = `${lines[from] as string}\n`;
      const p = Math.min(offset, n);
      return { body: body.slice(0, p) + copy + body.slice(p), touched: [p, p], what: `duplicate-line ${from}→${to}` };
    }
    case "multi": {
      // Later mutations work on the mutated text, so the touched range covers all of them conservatively.
      let out = body;
      let lo = Number.POSITIVE_INFINITY;
      let hi = 0;
      let shift = 0; // how far a position in the text so far may be from its original offset
      const whats: string[] = [];
      for (const p of plan.plans) {
        const m = mutate(out, p);
        lo = Math.min(lo, Math.max(0, m.touched[0] - shift));
        hi = Math.max(hi, m.touched[1] + shift);
        shift += Math.abs(m.body.length - out.length);
        out = m.body;
        whats.push(m.what);
      }
      return { body: out, touched: [lo, Math.max(hi, lo)], what: whats.join(",") };
    }
  }
}
