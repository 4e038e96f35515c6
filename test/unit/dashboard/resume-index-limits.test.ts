import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import { DASHBOARD_END, DASHBOARD_START, MAX_RESUME_INDEX_ENTRIES, buildResumeIndex, extractResumeIndex, formatResumeIndex, resumeIndexScope } from "../../../src/dashboard/index.ts";
import { formatCheckpoint } from "../../../src/protocol/index.ts";
import { comment, cpBody, policy } from "../projection/build-comments.ts";

const section = (line: string) => `${DASHBOARD_START}\n${line}\n${DASHBOARD_END}`;

describe("resume index: writer and reader agree on limits (issue 9: one odd entry used to void the whole index)", () => {
  it("a 257-character agent name costs only its own entry", () => {
    const long = "a".repeat(257);
    // formatCheckpoint refuses such a name; a hand-written comment (as any writer can post) does not.
    const longBody = cpBody().replace("[CHECKPOINT] implementation-worker", `[CHECKPOINT] ${long}`);
    const snap = projectComments([comment(1, cpBody({ phase: "ok" })), comment(2, longBody)], policy);
    expect(snap.entries.map((e) => e.agent.length).sort()).toEqual([21, 257]); // the reader accepts it…
    const ix = buildResumeIndex(snap);
    expect(ix.entries.map((e) => e.agent)).toEqual(["implementation-worker"]); // …the writer leaves it out…
    expect(ix.complete).toBe(false);
    const back = extractResumeIndex(section(formatResumeIndex(ix)));
    expect(back?.entries.map((e) => e.commentId)).toEqual([1]); // …and the rest of the index is read.
  });

  it(`more than ${MAX_RESUME_INDEX_ENTRIES} agents: the writer keeps the newest ${MAX_RESUME_INDEX_ENTRIES}, which the reader accepts`, () => {
    const n = MAX_RESUME_INDEX_ENTRIES + 5;
    const comments = Array.from({ length: n }, (_, i) => comment(i + 1, formatCheckpoint({ agent: `agent-${i}`, session: "s", phase: "p", timestamp: "t", data: {} })));
    const ix = buildResumeIndex(projectComments(comments, policy));
    expect(ix.entries).toHaveLength(MAX_RESUME_INDEX_ENTRIES);
    expect(Math.min(...ix.entries.map((e) => e.commentId))).toBe(6); // the 5 oldest left out
    expect(ix.complete).toBe(false);
    const back = extractResumeIndex(section(formatResumeIndex(ix)));
    expect(back?.entries).toHaveLength(MAX_RESUME_INDEX_ENTRIES);
  });
});

describe("signed resume index", () => {
  const snap = projectComments([comment(3, cpBody({ id: "cp-00000003", seq: 1, epoch: 2 }))], policy);
  const signing = { key: "k3y", scope: resumeIndexScope("Acme", "Widgets", 7) };
  const signed = section(formatResumeIndex(buildResumeIndex(snap), signing));

  it("is read with the key, and by a reader without a key", () => {
    expect(signing.scope).toBe("acme/widgets#7");
    expect(extractResumeIndex(signed, { signing })?.entries).toHaveLength(1);
    expect(extractResumeIndex(signed)?.entries).toHaveLength(1);
  });

  it("is ignored with the key when unsigned, tampered, signed with another key or copied from another issue", () => {
    expect(extractResumeIndex(section(formatResumeIndex(buildResumeIndex(snap))), { signing })).toBeNull();
    expect(extractResumeIndex(signed.replace('"maxEpoch":2', '"maxEpoch":1').replace('"epoch":2', '"epoch":1'), { signing })).toBeNull();
    expect(extractResumeIndex(signed, { signing: { ...signing, key: "other" } })).toBeNull();
    expect(extractResumeIndex(signed, { signing: { ...signing, scope: resumeIndexScope("acme", "widgets", 8) } })).toBeNull();
  });
});
