/**
 * Benign rewrites a tolerant 1.0 reader must accept unchanged (CRLF, the seed's
 * missing closing fence, shuffled headers, blank lines, indentation, trailing
 * spaces, BOM), and wrappers that make a body NOT a protocol comment.
 */
import fc from "fast-check";

export interface BenignPlan {
  crlf: "none" | "crlf" | "cr";
  removeClosingFence: boolean;
  /** Sort keys for the header lines (a permutation). */
  headerOrder: number[];
  /** Number of blank lines inserted after each header line (cycled). */
  blanks: number[];
  /** Whitespace appended to each line (cycled); "" for none. */
  trailing: string[];
  /** Whitespace prepended to header lines (cycled). */
  indent: string[];
  leadingBlankLines: number;
  bom: boolean;
}

const ws = fc.constantFrom("", "", "", " ", "  ", "\t", " \t ");

export const benignPlan: fc.Arbitrary<BenignPlan> = fc.record({
  crlf: fc.constantFrom("none", "crlf", "cr"),
  removeClosingFence: fc.boolean(),
  headerOrder: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 9, maxLength: 9 }),
  blanks: fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 5 }),
  trailing: fc.array(ws, { minLength: 1, maxLength: 5 }),
  indent: fc.array(ws, { minLength: 1, maxLength: 5 }),
  leadingBlankLines: fc.nat({ max: 3 }),
  bom: fc.boolean(),
});

const at = <T>(a: readonly T[], i: number, fallback: T): T => (a.length ? (a[i % a.length] as T) : fallback);

/** Apply a plan to a body produced by formatCheckpoint/formatHealth. */
export function applyBenign(body: string, plan: BenignPlan): string {
  let text = body;
  // The seed's f-string as published: no closing fence after the JSON.
  if (plan.removeClosingFence) text = text.replace(/\n```\n\n(---|Next check:)/, "\n\n$1");
  const lines = text.split("\n");
  const firstBlank = lines.indexOf("");
  const headers = lines.slice(1, firstBlank);
  const order = headers.map((line, i) => ({ line, key: at(plan.headerOrder, i, i) * 16 + i }));
  order.sort((a, b) => a.key - b.key);
  const rebuilt: string[] = [lines[0] as string];
  order.forEach(({ line }, i) => {
    rebuilt.push(at(plan.indent, i, "") + line);
    for (let b = 0; b < at(plan.blanks, i, 0); b++) rebuilt.push("");
  });
  rebuilt.push(...lines.slice(firstBlank));
  const eol = plan.crlf === "crlf" ? "\r\n" : plan.crlf === "cr" ? "\r" : "\n";
  const out = rebuilt.map((l, i) => l + at(plan.trailing, i, "")).join(eol);
  return (plan.bom ? "\ufeff" : "") + eol.repeat(plan.leadingBlankLines) + out;
}

export type Wrapper = "quote" | "quote-nospace" | "prose-before" | "code-fence" | "list-item" | "html-comment" | "inline" | "heading" | "zero-width";

export const wrapper: fc.Arbitrary<Wrapper> = fc.constantFrom("quote", "quote-nospace", "prose-before", "code-fence", "list-item", "html-comment", "inline", "heading", "zero-width");

/** Wrap a protocol body so that it is only a mention of one (a reply, a quote, an example). */
export function applyWrapper(body: string, w: Wrapper, prose: string): string {
  const p = prose.replace(/[[\]]/g, "").trim() || "As discussed";
  switch (w) {
    case "quote":
      return body
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n");
    case "quote-nospace":
      return body
        .split("\n")
        .map((l) => `>${l}`)
        .join("\n");
    case "prose-before":
      return `${p}\n\n${body}`;
    case "code-fence":
      return "```\n" + body + "\n```";
    case "list-item":
      return `- ${body}`;
    case "html-comment":
      return `<!--\n${body}\n-->`;
    case "inline":
      return `${p} \`${body.split("\n")[0] ?? ""}\` ${body}`;
    case "heading":
      return `## ${body}`;
    case "zero-width":
      return `\u200b${body}`;
  }
}
