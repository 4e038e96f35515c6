import { expect, it } from "vitest";
import { formatCheckpoint, parseComment, pythonJsonDumps } from "../../../src/protocol/index.ts";
import type { JsonObject } from "../../../src/protocol/index.ts";
import { commentFixture } from "../../../fixtures/index.ts";
import { describeWithPython3, runPython, runSeedParser } from "../../helpers/seed-python.ts";

// Data chosen to hit every place JS and Python serialisers differ.
const awkward: JsonObject[] = [
  { issue_number: 7, branch_name: "feat/x", completed_subtasks: [1, 2], working_dir: "/tmp/w" },
  { "10": "ten", "9": "nine", "": "empty key", a: { z: 1, b: [], c: {} } },
  { text: 'héllo ☃ 😀 \u007f \u0000 \n\t "quoted" back\\slash </script>', big: 12345678901234, neg: -0.5, exp: 1e-7, tiny: 0.00012, huge: 1.5e300, huger: 1e22, frac: 123456.789 },
  { nested: [[[]], [{}], { deep: { deeper: [null, true, false] } }] },
  { é: 1, e: 2, "😀": 3, "\uffff": 4 },
];

// Needs python3 (runs the seed's own Python); see describeWithPython3.
describeWithPython3("the seed's Python reader over bodies we format", () => {
  it("parse_checkpoint_comment reads every field we wrote", () => {
    const bodies = awkward.map((data, i) =>
      formatCheckpoint({
        agent: "implementation-worker",
        session: `s-${i}`,
        phase: "commit_complete",
        timestamp: "2026-11-29T10:00:00.500000Z",
        data,
        id: `cp-000000000000000${i}`,
        seq: i + 1,
        epoch: 1,
      }),
    );
    const results = runSeedParser(bodies);
    results.forEach((r, i) => {
      expect(r).toEqual({
        agent: "implementation-worker",
        version: "1.0",
        phase: "commit_complete",
        session: `s-${i}`,
        timestamp: "2026-11-29T10:00:00.500000Z",
        data: awkward[i],
      });
    });
  });

  it("our JSON is byte-identical to json.dumps(indent=2, sort_keys=True) and json.dumps(indent=2)", () => {
    const py = runPython("import json,sys\nfor d in json.load(sys.stdin):\n  print(json.dumps(json.dumps(d, indent=2, sort_keys=True)))\n  print(json.dumps(json.dumps(d, indent=2)))", awkward)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as string);
    awkward.forEach((d, i) => {
      expect(pythonJsonDumps(d, { indent: 2, sortKeys: true })).toBe(py[2 * i]);
    });
    // Unsorted output follows insertion order, which JS cannot keep for integer-like keys; compare the rest.
    expect(pythonJsonDumps(awkward[2] as JsonObject, { indent: 2 })).toBe(py[5]);
  });

  it("our reader agrees with the seed's on the seed's own fenced fixture", () => {
    const [seed] = runSeedParser([commentFixture("seed-fenced")]);
    const ours = parseComment(commentFixture("seed-fenced"));
    expect(ours.kind).toBe("checkpoint");
    if (ours.kind === "checkpoint") expect(seed).toEqual({ ...ours.checkpoint });
  });

  it("documents where the seed's reader fails and ours does not (unfenced, CRLF)", () => {
    const crlf = commentFixture("seed-fenced").replace(/\n/g, "\r\n");
    const [unfenced, crlfResult] = runSeedParser([commentFixture("seed-unfenced"), crlf]);
    expect(unfenced).toBeNull();
    expect(crlfResult).toBeNull();
    expect(parseComment(commentFixture("seed-unfenced")).kind).toBe("checkpoint");
    expect(parseComment(crlf).kind).toBe("checkpoint");
  });
});
