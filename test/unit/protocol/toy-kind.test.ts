// A comment kind is one file plus one registry line (issue 20, item 4): this test is that file. It
// defines `[NOTE]` here alone, adds it to a registry, and follows one note from the writer through the
// reader, `checkpost parse`'s output, the schemas, the store's body check and into the projection.
import * as z from "zod";
import { describe, expect, it } from "vitest";
import {
  COMMENT_KINDS,
  InvalidComment,
  ParsedCommentSchema,
  formatCheckpoint,
  formatComment,
  kindRegistry,
  parseComment,
  parsedCommentSchema,
  protocolJsonSchema,
  toParseOutput,
} from "../../../src/protocol/index.ts";
import type { CommentKind } from "../../../src/protocol/index.ts";
import { createProjection } from "../../../src/projection/index.ts";
import type { CommentRecord } from "../../../src/projection/index.ts";
import { isProtocolBody } from "../../../src/bot-state/is-protocol-body.ts";

const NoteSchema = z.object({ agent: z.string(), session: z.string(), text: z.string() });
type Note = z.infer<typeof NoteSchema>;

/** The toy kind: `[NOTE] <agent>`, a Session and a Text line, no JSON block. */
const noteKind: CommentKind<"note", Note, Note, { agent: string; session: string; text: string }> = {
  kind: "note",
  marker: "[NOTE]",
  label: "note",
  schema: NoteSchema,
  jsonSchema: { id: "Note", description: "A [NOTE] comment's fields (a test's toy kind)." },
  headers: new Map([
    ["session", "session"],
    ["text", "text"],
  ]),
  json: "none",
  read(agent, headers) {
    const session = headers.get("session");
    const text = headers.get("text");
    if (!session || !text) throw new InvalidComment('a note needs "Session:" and "Text:" lines');
    return { agent, session, text };
  },
  format: (n) => `[NOTE] ${n.agent}\nSession: ${n.session}\nText: ${n.text}\n`,
  output: ({ agent, session, text }) => ({ agent, session, text }),
  entryOf: ({ agent, session }) => ({ agent, session }),
  project: ({ text }) => ({ text }),
};

/** The registry line. */
const kinds = kindRegistry([...COMMENT_KINDS, noteKind]);

let nextId = 100;
const comment = (body: string, author = "worker"): CommentRecord => {
  const at = new Date(Date.UTC(2026, 10, 29, 10, 0, nextId)).toISOString();
  return { id: nextId++, author, body, createdAt: at, updatedAt: at };
};

describe("a comment kind defined in a test alone", () => {
  const body = formatComment("note", { agent: "w", session: "s1", text: "handing over to review" }, kinds);

  it("is written and read through the registry; the protocol's own reader does not know it", () => {
    expect(body).toBe("[NOTE] w\nSession: s1\nText: handing over to review\n");
    const parsed = parseComment(body, {}, kinds);
    expect(parsed).toEqual({ kind: "note", note: { agent: "w", session: "s1", text: "handing over to review" } });
    expect(parseComment(body)).toEqual({ kind: "none" });
    expect(parseComment("[NOTE] w\nSession: s1\n", {}, kinds)).toEqual({ kind: "invalid", marker: "note", agent: "w", error: 'a note needs "Session:" and "Text:" lines' });
    // The protocol's kinds still read as before under the larger registry.
    const cp = formatCheckpoint({ agent: "w", session: "s1", phase: "p", data: {}, timestamp: "2026-11-29T10:00:00Z" });
    expect(parseComment(cp, {}, kinds)).toEqual(parseComment(cp));
  });

  it("has `checkpost parse` output, a branch in the parsed-comment schema and a $defs entry in the JSON Schema", () => {
    const parsed = parseComment(body, {}, kinds);
    expect(toParseOutput(parsed, kinds)).toEqual({ kind: "note", agent: "w", session: "s1", text: "handing over to review" });
    expect(parsedCommentSchema(kinds).safeParse(parsed).success).toBe(true);
    expect(parsedCommentSchema(kinds).safeParse({ kind: "invalid", marker: "note", agent: null, error: "x" }).success).toBe(true);
    expect(ParsedCommentSchema.safeParse(parsed).success).toBe(false);
    const defs = protocolJsonSchema(kinds)["$defs"] as Record<string, { description?: string; properties?: Record<string, unknown> }>;
    expect(Object.keys(defs)).toEqual(["Checkpoint", "JsonValue", "Health", "Control", "Snapshot", "Note"]);
    expect(Object.keys(defs["Note"]?.properties ?? {})).toEqual(["agent", "session", "text"]);
    expect(Object.keys(protocolJsonSchema()["$defs"] as object)).not.toContain("Note");
  });

  it("is kept by the store's protocol-body check under its registry", () => {
    expect(isProtocolBody(`\n  ${body}`, kinds)).toBe(true);
    expect(isProtocolBody(body)).toBe(false);
    expect(isProtocolBody("a person writing [NOTE] in passing", kinds)).toBe(false);
  });

  it("reaches the projection through its hook: the newest trusted, unedited note per agent+session", () => {
    for (const hotRecords of [undefined, 1]) {
      const p = createProjection({ trustedAuthors: new Set(["worker"]) }, { kinds, ...(hotRecords ? { hotRecords } : {}) });
      const cp = comment(formatCheckpoint({ agent: "w", session: "s1", phase: "p", data: { n: 1 }, timestamp: "2026-11-29T10:00:00Z" }));
      const first = comment(formatComment("note", { agent: "w", session: "s1", text: "first" }, kinds));
      const second = comment(formatComment("note", { agent: "w", session: "s1", text: "second" }, kinds));
      const forged = comment(formatComment("note", { agent: "w", session: "s1", text: "forged" }, kinds), "mallory");
      p.applyAll([cp, first, second, forged].map((c) => ({ type: "upsert" as const, comment: c })));
      const entry = p.snapshot().entries.find((e) => e.agent === "w" && e.session === "s1");
      expect(entry?.kinds).toEqual({ note: { commentId: second.id, createdAt: second.createdAt, value: { text: "second" } } });
      expect(entry?.latest?.phase).toBe("p"); // the protocol's own kinds fold as before
      // Without the kind in its registry the projection never sees a note.
      const plain = createProjection({ trustedAuthors: new Set(["worker"]) });
      plain.applyAll([cp, second].map((c) => ({ type: "upsert" as const, comment: c })));
      expect(plain.snapshot().entries[0]?.kinds).toBeUndefined();
    }
  });
});
