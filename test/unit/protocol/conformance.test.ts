/**
 * The conformance corpus (fixtures/conformance/, written once by fixtures/conformance/generate.ts and
 * reviewed) against the TypeScript implementation. The Python client runs the same files
 * (python/tests/test_conformance.py), so the two cannot drift: a change to either that alters an answer
 * fails here or there until the corpus is regenerated on purpose and its diff reviewed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatCheckpoint, formatControl, formatHealth, parseComment, signCheckpoint, signControl, toParseOutput, verifyCheckpointSignature } from "../../../src/protocol/index.ts";
import type { Checkpoint, JsonObject, ParsedComment, PhaseMap } from "../../../src/protocol/index.ts";
import { createProjection } from "../../../src/projection/index.ts";
import type { CommentEvent, LegacyWriters } from "../../../src/projection/index.ts";
import { withEnvFile } from "../../../src/cli/env-file.ts";
import { extractResumeIndex, extractResumeIndexFromComment, extractResumeIndexRef, resumeIndexScope } from "../../../src/dashboard/index.ts";

const load = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../../../fixtures/conformance/${name}.json`, import.meta.url), "utf8")) as T;

function parseOut(p: ParsedComment): unknown {
  const out = toParseOutput(p) as Record<string, unknown>;
  if (p.kind === "control") out["version"] = p.control.version;
  return out;
}

describe("conformance corpus: parse", () => {
  const cases = load<{ name: string; body: string; expected: unknown }[]>("parse");
  it("holds the cases it was generated with", () => expect(cases.length).toBeGreaterThan(40));
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    expect(parseOut(parseComment(c.body))).toEqual(c.expected);
  });
});

describe("conformance corpus: format and sign", () => {
  type CpInput = Omit<Checkpoint, "version" | "timestamp" | "data"> & { timestamp: string; data: JsonObject };
  const f = load<{
    key: string;
    checkpoint: { name: string; input: CpInput; body: string; signature: string; signedBody: string }[];
    health: { name: string; input: { agent: string; session: string; timestamp: string; metrics: JsonObject }; body: string }[];
    control: { name: string; input: Parameters<typeof formatControl>[0]; body: string; signature: string }[];
  }>("format");
  it.each(f.checkpoint.map((c) => [c.name, c] as const))("checkpoint: %s", (_n, c) => {
    expect(formatCheckpoint(c.input)).toBe(c.body);
    expect(signCheckpoint({ ...c.input, version: "1.0" }, f.key)).toBe(c.signature);
    expect(formatCheckpoint({ ...c.input, signature: c.signature })).toBe(c.signedBody);
    const back = parseComment(c.signedBody);
    expect(back.kind === "checkpoint" && verifyCheckpointSignature(back.checkpoint, f.key)).toBe(true);
  });
  it.each(f.health.map((c) => [c.name, c] as const))("health: %s", (_n, c) => expect(formatHealth(c.input)).toBe(c.body));
  it.each(f.control.map((c) => [c.name, c] as const))("control: %s", (_n, c) => {
    expect(formatControl(c.input)).toBe(c.body);
    expect(signControl({ ...c.input, version: "1.0" }, f.key)).toBe(c.signature);
  });
});

describe("conformance corpus: fold (resume answers per agent)", () => {
  const cases =
    load<
      {
        name: string;
        policy: { trustedAuthors: string[]; signingKey?: string; legacyWriters?: LegacyWriters };
        events: CommentEvent[];
        queries: { agent: string; session: string; map: PhaseMap }[];
        expected: unknown[];
      }[]
    >("fold");
  it("holds the cases it was generated with", () => expect(cases.length).toBeGreaterThan(20));
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    const p = createProjection({
      trustedAuthors: new Set(c.policy.trustedAuthors),
      ...(c.policy.signingKey ? { signingKey: c.policy.signingKey } : {}),
      ...(c.policy.legacyWriters ? { legacyWriters: c.policy.legacyWriters } : {}),
    });
    p.applyAll(c.events);
    const got = c.queries.map((q) => ({ ...p.resume(q.agent, q.session, q.map), maxEpoch: p.entry(q.agent, q.session)?.maxEpoch ?? 0 }));
    expect(got).toEqual(c.expected);
  });
});

describe("conformance corpus: resume index", () => {
  const cases = load<{ name: string; body: string; signing: boolean; key: string; scope: { owner: string; repo: string; issue: number }; expected: unknown }[]>("index");
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    const signing = c.signing ? { signing: { key: c.key, scope: resumeIndexScope(c.scope.owner, c.scope.repo, c.scope.issue) } } : {};
    expect(extractResumeIndex(c.body, signing)).toEqual(c.expected);
  });
});

describe("conformance corpus: the pointer to the index comment, and the index comment", () => {
  const f = load<{
    scope: { owner: string; repo: string; issue: number };
    key: string;
    refs: { name: string; body: string; expected: unknown }[];
    comments: { name: string; body: string; signing: boolean; expected: unknown }[];
  }>("index-ref");
  const scope = resumeIndexScope(f.scope.owner, f.scope.repo, f.scope.issue);
  it("holds the cases it was generated with", () => {
    expect(f.refs.filter((r) => r.expected !== null).length).toBeGreaterThan(2);
    expect(f.comments.filter((c) => c.expected !== null).length).toBeGreaterThan(2);
  });
  it.each(f.refs.map((c) => [c.name, c] as const))("pointer: %s", (_n, c) => expect(extractResumeIndexRef(c.body)).toEqual(c.expected));
  it.each(f.comments.map((c) => [c.name, c] as const))("index comment: %s", (_n, c) => {
    expect(extractResumeIndexFromComment(c.body, c.signing ? { signing: { key: f.key, scope } } : {})).toEqual(c.expected);
  });
});

describe("conformance corpus: a dotenv file, as the CLI reads it", () => {
  const f = load<{ name: string; text: string; expected: Record<string, string> }[]>("env-file");
  // Through the CLI's own path (./.env in a folder, an empty environment), not just Node's parser: the
  // Python client's Client.from_env() reads the same files (python/tests/test_env_file.py).
  it.each(f.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-env-conformance-"));
    writeFileSync(join(dir, ".env"), c.text);
    expect({ ...withEnvFile({}, dir, undefined) }).toEqual(c.expected);
  });
});
