import { describe, expect, it } from "vitest";
import {
  formatCheckpoint,
  formatHealth,
  parseCheckpoint,
  parseComment,
  pythonUtcIsoformat,
  safeParseCheckpoint,
  signCheckpoint,
  verifyCheckpointSignature,
  toParseOutput,
} from "../../../src/protocol/index.ts";
import type { JsonObject } from "../../../src/protocol/index.ts";
import { commentFixture } from "../../../fixtures/index.ts";
import { CheckpointParseError, ProtocolInputError } from "../../../src/errors.ts";

const base = {
  agent: "implementation-worker",
  session: "sess-42",
  phase: "subtask_1_complete",
  timestamp: "2026-11-29T10:00:00.500000Z",
  data: { issue_number: 7, branch_name: "feat/issue-7", completed_subtasks: [1], working_dir: "/tmp/w" } as JsonObject,
};

describe("formatCheckpoint", () => {
  it("writes the seed's layout byte for byte (fixture seed-fenced.md)", () => {
    expect(formatCheckpoint(base) + "\n").toBe(commentFixture("seed-fenced"));
  });

  it("adds Id, Seq, Epoch and Signature after Time, where 1.0 readers ignore them", () => {
    const body = formatCheckpoint({ ...base, id: "cp-0123456789abcdef", seq: 3, epoch: 2 });
    expect(body.split("\n").slice(0, 8)).toEqual([
      "[CHECKPOINT] implementation-worker",
      "Version: 1.0",
      "Phase: subtask_1_complete",
      "Session: sess-42",
      "Time: 2026-11-29T10:00:00.500000Z",
      "Id: cp-0123456789abcdef",
      "Seq: 3",
      "Epoch: 2",
    ]);
  });

  it.each([
    ["agent", { agent: "two\nlines" }],
    ["agent", { agent: "" }],
    ["phase", { phase: " padded" }],
    ["session", { session: "x".repeat(300) }],
    ["seq", { seq: 0 }],
    ["id", { id: "bad id with spaces" }],
  ])("rejects an unwritable %s", (_field, patch) => {
    expect(() => formatCheckpoint({ ...base, ...patch })).toThrow(ProtocolInputError);
  });

  it("rejects non-finite numbers in data (JSON has none)", () => {
    expect(() => formatCheckpoint({ ...base, data: { x: Number.NaN } })).toThrow(ProtocolInputError);
  });
});

describe("parseComment", () => {
  it("reads the seed's fenced form", () => {
    const p = parseComment(commentFixture("seed-fenced"));
    expect(p).toEqual({
      kind: "checkpoint",
      checkpoint: { version: "1.0", ...base },
    });
  });

  it("reads the seed's published form without a closing fence", () => {
    const p = parseComment(commentFixture("seed-unfenced"));
    expect(p.kind).toBe("checkpoint");
    if (p.kind !== "checkpoint") return;
    expect(p.checkpoint.phase).toBe("clone_complete");
    expect(p.checkpoint.data).toEqual({ branch_name: "feat/issue-7", issue_number: 7, working_dir: "/tmp/w" });
  });

  it("reads CRLF bodies (edited in the web UI), blank lines and trailing spaces around it", () => {
    const crlf = "\r\n\r\n  " + commentFixture("seed-fenced").replace(/\n/g, "  \r\n") + "\r\n\r\n";
    const p = parseComment(crlf);
    expect(p).toEqual(parseComment(commentFixture("seed-fenced")));
  });

  it("reads header lines in any order", () => {
    const p = parseComment(commentFixture("evil"));
    expect(p.kind).toBe("checkpoint");
    if (p.kind === "checkpoint") expect([p.checkpoint.phase, p.checkpoint.session, p.checkpoint.version]).toEqual(["pr_created", "sess-42", "1.0"]);
  });

  it("does not mistake a person's quote of [CHECKPOINT] for a checkpoint", () => {
    expect(parseComment(commentFixture("human-quote"))).toEqual({ kind: "none" });
    expect(parseComment("see the [CHECKPOINT] implementation-worker above")).toEqual({ kind: "none" });
  });

  it("reports broken JSON as invalid with the reason, never throws", () => {
    const p = parseComment(commentFixture("malformed-json"));
    expect(p).toMatchObject({ kind: "invalid", marker: "checkpoint", agent: "implementation-worker" });
    if (p.kind === "invalid") expect(p.error).toMatch(/^broken JSON/);
  });

  it("reports a missing JSON block as invalid", () => {
    expect(parseComment(commentFixture("missing-json"))).toMatchObject({ kind: "invalid", error: "no ```json block" });
  });

  it.each([
    ["missing Session", (b: string) => b.replace(/^Session:.*\n/m, ""), /missing "Session:"/],
    ["missing Phase", (b: string) => b.replace(/^Phase:.*\n/m, ""), /missing "Phase:"/],
    ["no agent", (b: string) => b.replace("[CHECKPOINT] implementation-worker", "[CHECKPOINT]   "), /missing agent/],
    ["version 2", (b: string) => b.replace("Version: 1.0", "Version: 2.0"), /unsupported protocol version/],
    ["conflicting Phase", (b: string) => b.replace("Session:", "Phase: other\nSession:"), /conflicting/],
    ["bad Seq", (b: string) => b.replace("Time:", "Seq: -1\nTime:"), /"Seq:" must be an integer/],
    ["empty block", (b: string) => b.replace(/```json\n[\s\S]*?\n```/, "```json\n\n```"), /empty/],
  ])("reports %s as invalid", (_name, mutate, reason) => {
    const p = parseComment(mutate(commentFixture("seed-fenced")));
    expect(p.kind).toBe("invalid");
    if (p.kind === "invalid") expect(p.error).toMatch(reason);
  });

  it("bounds body size and JSON depth", () => {
    const big = formatCheckpoint({ ...base, data: { blob: "x".repeat(2000) } });
    expect(parseComment(big, { maxBodyBytes: 1000 })).toMatchObject({ kind: "invalid", error: expect.stringMatching(/exceeds/) });
    const deep = commentFixture("seed-fenced").replace(/```json\n[\s\S]*?\n```/, "```json\n" + "[".repeat(100_000) + "]".repeat(100_000) + "\n```");
    expect(parseComment(deep)).toMatchObject({ kind: "invalid", error: expect.stringMatching(/deeper than 64/) });
  });

  it("bounds JSON depth the same whether or not the bracket count lets it skip the depth scan", () => {
    const withBlock = (json: string) => commentFixture("seed-fenced").replace(/```json\n[\s\S]*?\n```/, () => `\`\`\`json\n${json}\n\`\`\``);
    // Few brackets (no scan): the depth equals the count, at the limit and one over it.
    expect(parseComment(withBlock("[[[1]]]"), { maxJsonDepth: 3 })).toMatchObject({ kind: "checkpoint" });
    expect(parseComment(withBlock("[[[[1]]]]"), { maxJsonDepth: 3 })).toMatchObject({ kind: "invalid", error: expect.stringMatching(/deeper than 3/) });
    // Many brackets inside strings (scan taken), shallow JSON: still read, the scan skips strings.
    const p = parseComment(withBlock(JSON.stringify({ a: "{[".repeat(100), b: [1] })), { maxJsonDepth: 3 });
    expect(p.kind === "checkpoint" && p.checkpoint.data).toEqual({ a: "{[".repeat(100), b: [1] });
    // Many sibling brackets, shallow: read; deep among many: refused.
    expect(parseComment(withBlock(JSON.stringify(Array.from({ length: 100 }, () => [{}]))), { maxJsonDepth: 3 })).toMatchObject({ kind: "checkpoint" });
    expect(parseComment(withBlock(`[${"[],".repeat(100)}[[[[]]]]]`), { maxJsonDepth: 3 })).toMatchObject({ kind: "invalid" });
  });

  it("keeps __proto__ and constructor as plain data without polluting prototypes", () => {
    const p = parseComment(commentFixture("evil"));
    expect(p.kind).toBe("checkpoint");
    if (p.kind !== "checkpoint") return;
    const data = p.checkpoint.data as Record<string, unknown>;
    expect(Object.hasOwn(data, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it("ignores non-strings", () => {
    expect(parseComment(undefined)).toEqual({ kind: "none" });
    expect(parseComment(42)).toEqual({ kind: "none" });
  });
});

describe("health", () => {
  it("round-trips a health signal in the seed's layout", () => {
    const body = formatHealth({ agent: "orch", session: "s", timestamp: "2026-11-29T10:05:00.250000Z", metrics: { b: 1, a: 2 } });
    expect(body).toContain('Status: Active\n\nMetrics:\n```json\n{\n  "b": 1,\n  "a": 2\n}\n```\n\nNext check: in 10 iterations\n\n---');
    expect(parseComment(body)).toEqual({
      kind: "health",
      health: { agent: "orch", session: "s", timestamp: "2026-11-29T10:05:00.250000Z", status: "Active", metrics: { b: 1, a: 2 }, nextCheck: "in 10 iterations" },
    });
  });

  it("reads the fixture forms, fenced and unfenced", () => {
    expect(parseComment(commentFixture("health"))).toMatchObject({ kind: "health", health: { status: "Active", metrics: { cycle_count: 12, active_workers: 3 } } });
    expect(parseComment(commentFixture("health-unfenced"))).toMatchObject({ kind: "health", health: { status: "Degraded", metrics: { queue_depth: 4 } } });
  });
});

describe("parseCheckpoint / safeParseCheckpoint", () => {
  it("throws CheckpointParseError with the reason, an example and the input", () => {
    expect(() => parseCheckpoint(commentFixture("malformed-json"))).toThrow(CheckpointParseError);
    expect(() => parseCheckpoint("hello")).toThrow(/does not open with \[CHECKPOINT\][\s\S]*Expected a comment like[\s\S]*Got:\nhello/);
  });
  it("returns a result union", () => {
    expect(safeParseCheckpoint(commentFixture("seed-fenced")).success).toBe(true);
    expect(safeParseCheckpoint(commentFixture("health"))).toEqual({ success: false, error: "this is a [HEALTH] comment, not a checkpoint" });
  });
});

describe("pythonUtcIsoformat", () => {
  it("writes microseconds like Python, and none when zero", () => {
    expect(pythonUtcIsoformat(new Date("2026-11-29T10:00:00.500Z"))).toBe("2026-11-29T10:00:00.500000Z");
    expect(pythonUtcIsoformat(new Date("2026-11-29T10:00:00.000Z"))).toBe("2026-11-29T10:00:00Z");
  });
});

describe("signatures", () => {
  it("verifies what it signed and rejects any change or wrong key", () => {
    const cp = { version: "1.0", ...base, id: "cp-0123456789abcdef", seq: 1, epoch: 0 };
    const signed = { ...cp, signature: signCheckpoint(cp, "k1") };
    const parsed = parseCheckpoint(formatCheckpoint(signed));
    expect(verifyCheckpointSignature(parsed, "k1")).toBe(true);
    expect(verifyCheckpointSignature(parsed, "k2")).toBe(false);
    expect(verifyCheckpointSignature({ ...parsed, phase: "pr_created" }, "k1")).toBe(false);
    expect(verifyCheckpointSignature({ ...parsed, data: { ...base.data, issue_number: 8 } }, "k1")).toBe(false);
    expect(verifyCheckpointSignature({ ...parsed, signature: undefined }, "k1")).toBe(false);
  });
});

describe("toParseOutput", () => {
  it("flattens to the CLI's JSON shape", () => {
    expect(toParseOutput(parseComment(commentFixture("seed-fenced")))).toEqual({ kind: "checkpoint", version: "1.0", ...base });
    expect(toParseOutput(parseComment("hi"))).toEqual({ kind: "none" });
  });
});
