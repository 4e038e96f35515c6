import { describe, expect, it } from "vitest";
import { COMMENT_KINDS, formatCheckpoint, formatControl, kindForHead, parseComment, signControl, toParseOutput, verifyControlSignature } from "../../../src/protocol/index.ts";
import type { ControlInput } from "../../../src/protocol/index.ts";
import { ProtocolInputError } from "../../../src/errors.ts";
import { describeWithPython3, runSeedParser } from "../../helpers/seed-python.ts";

const base = { agent: "implementation-worker", session: "s1", timestamp: "2026-11-29T10:00:00Z", by: "alice" } as const;
const all: ControlInput[] = [
  { ...base, action: "pause", reason: "checkbox" },
  { ...base, action: "unpause" },
  { ...base, action: "rewind", target: 42, targetId: "cp-0123456789abcdef", epoch: 3 },
  { ...base, action: "release", epoch: 2 },
  { ...base, action: "hide" },
];

describe("the comment-kind registry", () => {
  it("knows each marker once and finds the kind by the comment's first line", () => {
    const markers = COMMENT_KINDS.map((k) => k.marker);
    expect(new Set(markers).size).toBe(markers.length);
    expect(kindForHead("[CONTROL] a")?.kind).toBe("control");
    expect(kindForHead("[HEALTH] a")?.kind).toBe("health");
    expect(kindForHead("[CHECKPOINT] a")?.kind).toBe("checkpoint");
    expect(kindForHead("[OTHER] a")).toBeUndefined();
  });
});

describe("[CONTROL] comments", () => {
  it("round-trip through our reader for every action", () => {
    for (const input of all) {
      const p = parseComment(formatControl(input));
      expect(p.kind).toBe("control");
      if (p.kind === "control") expect(p.control).toEqual({ version: "1.0", ...input });
    }
  });

  it("are printed flat by `parse`", () => {
    expect(toParseOutput(parseComment(formatControl(all[2] as ControlInput)))).toEqual({
      kind: "control",
      agent: "implementation-worker",
      session: "s1",
      action: "rewind",
      timestamp: "2026-11-29T10:00:00Z",
      target: 42,
      targetId: "cp-0123456789abcdef",
      epoch: 3,
      by: "alice",
    });
  });

  it("are invalid, with a reason, when an action lacks what it needs or is unknown", () => {
    const rewind = formatControl(all[2] as ControlInput).replace("Target: 42\n", "");
    expect(parseComment(rewind)).toMatchObject({ kind: "invalid", marker: "control", error: expect.stringMatching(/Target/) });
    const unknown = formatControl(all[0] as ControlInput).replace("Action: pause", "Action: explode");
    expect(parseComment(unknown)).toMatchObject({ kind: "invalid", marker: "control", error: expect.stringMatching(/unknown "Action:"/) });
    const withJson = `${formatControl(all[0] as ControlInput).split("---")[0]}\`\`\`json\n{}\n\`\`\`\n`;
    expect(parseComment(withJson)).toMatchObject({ kind: "invalid", marker: "control" });
  });

  it("refuse to be written with a value the seed's reader keys on, or without a rewind target", () => {
    expect(() => formatControl({ ...base, action: "pause", reason: "see [CHECKPOINT] x" })).toThrow(ProtocolInputError);
    expect(() => formatControl({ ...base, action: "rewind", epoch: 1 })).toThrow(/target/);
    expect(() => formatControl({ ...base, action: "release" })).toThrow(/epoch/);
  });

  it("are signed over every field: changing one breaks the signature", () => {
    const c = { ...(all[2] as ControlInput), version: "1.0" };
    const signed = { ...c, signature: signControl(c, "k") };
    expect(verifyControlSignature(signed, "k")).toBe(true);
    expect(verifyControlSignature({ ...signed, epoch: 4 }, "k")).toBe(false);
    expect(verifyControlSignature(signed, "other")).toBe(false);
  });
});

describeWithPython3("the seed's 1.0 reader (parse_checkpoint_comment, cut from fixtures/seed)", () => {
  it("ignores every [CONTROL] comment: None, no exception", () => {
    const bodies = all.map((c) => formatControl(c));
    expect(runSeedParser(bodies)).toEqual(bodies.map(() => null));
  });

  it("still reads the checkpoints around them", () => {
    const cp = formatCheckpoint({ agent: "implementation-worker", session: "s1", phase: "clone_complete", timestamp: "2026-11-29T10:00:00Z", data: { a: 1 } });
    const [a, b] = runSeedParser([cp, formatControl(all[0] as ControlInput)]);
    expect(a).toMatchObject({ agent: "implementation-worker", phase: "clone_complete", data: { a: 1 } });
    expect(b).toBeNull();
  });
});
