import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goJsonIndent } from "../../../src/embedded-forge/index.ts";
import { issueBodyAsNull, parseWebhookJson } from "../../../src/bot/ingest/parse-webhook-json.ts";

/** What the plain path gives, with the issue body dropped as the fast path drops it. */
function reference(raw: Buffer): unknown {
  const v = JSON.parse(raw.toString("utf8")) as { issue?: { body?: unknown } };
  if (v.issue && "body" in v.issue) v.issue.body = null;
  return v;
}

const text = fc.string({ unit: "binary", maxLength: 40 });
const payload = fc.record({
  action: fc.constantFrom("created", "edited"),
  issue: fc.record({ number: fc.nat(), title: text, body: text, labels: fc.array(fc.record({ name: text }), { maxLength: 3 }) }),
  comment: fc.record({ id: fc.nat(), body: text, user: fc.record({ login: text }) }),
  extra: fc.dictionary(text, fc.oneof(text, fc.integer(), fc.constant(null)), { maxKeys: 3 }),
});

describe("parseWebhookJson (issue_comment's Latin-1 path)", () => {
  it("equals JSON.parse of the UTF-8 text for Forgejo's encoding (Go, indented), issue body aside", () => {
    fc.assert(
      fc.property(payload, (p) => {
        const raw = Buffer.from(goJsonIndent(p));
        expect(parseWebhookJson(raw, "issue_comment")).toEqual(reference(raw));
      }),
      { numRuns: 400 },
    );
  });

  it("equals it for any JSON encoder, escapes of non-ASCII included (they take the UTF-8 path)", () => {
    fc.assert(
      fc.property(payload, fc.boolean(), (p, ascii) => {
        // JSON.stringify writes non-ASCII raw; the replacer variant escapes it all as \uXXXX.
        const json = ascii ? JSON.stringify(p).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : JSON.stringify(p);
        const raw = Buffer.from(json);
        expect(parseWebhookJson(raw, "issue_comment")).toEqual(reference(raw));
      }),
      { numRuns: 400 },
    );
  });

  it("keeps the text of a comment with emoji and accents, and a __proto__ key stays data", () => {
    const raw = Buffer.from('{"issue":{"number":1,"body":"🟢 dashboard"},"comment":{"body":"[CHECKPOINT] zoë 🟡 → done","user":{"login":"agent"}},"__proto__":{"polluted":"ø"}}');
    const v = parseWebhookJson(raw, "issue_comment") as { comment: { body: string }; issue: { body: unknown } } & Record<string, unknown>;
    expect(v.comment.body).toBe("[CHECKPOINT] zoë 🟡 → done");
    expect(v.issue.body).toBeNull();
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(v, "__proto__")?.value).toEqual({ polluted: "ø" });
  });

  it("parses other events whole, and answers undefined for text that is not JSON", () => {
    const raw = Buffer.from('{"issue":{"body":"🟢 dashboard"}}');
    expect(parseWebhookJson(raw, "issues")).toEqual({ issue: { body: "🟢 dashboard" } });
    expect(parseWebhookJson(Buffer.from("{not json"), "issue_comment")).toBeUndefined();
  });

  it("never decodes the issue body of Go-indented JSON: its string is cut out as null, whatever it escapes", () => {
    fc.assert(
      fc.property(payload, fc.array(fc.constantFrom("\\", '"', '\\"', "\n", "  }", '    "body": "', "\u2028", "🟢"), { maxLength: 12 }), (p, bits) => {
        const raw = Buffer.from(goJsonIndent({ ...p, issue: { ...p.issue, body: bits.join("") } }));
        const cut = issueBodyAsNull(raw);
        expect(cut.toString("utf8")).toContain('\n    "body": null,\n');
        expect(JSON.parse(cut.toString("utf8"))).toEqual(reference(raw));
        expect(parseWebhookJson(raw, "issue_comment")).toEqual(reference(raw));
      }),
      { numRuns: 300 },
    );
  });

  it("cuts nothing from compact JSON, an empty issue or an issue without a body string", () => {
    const compact = Buffer.from(JSON.stringify({ issue: { number: 1, body: "dashboard" }, comment: { body: "x" } }));
    expect(issueBodyAsNull(compact)).toBe(compact);
    for (const issue of [{}, { number: 1, body: null }, { number: 1 }]) {
      const raw = Buffer.from(goJsonIndent({ action: "created", issue, comment: { id: 1, body: "[CHECKPOINT] kept" } }));
      expect(issueBodyAsNull(raw)).toBe(raw);
      expect((parseWebhookJson(raw, "issue_comment") as { comment: { body: string } }).comment.body).toBe("[CHECKPOINT] kept");
    }
  });
});
