import { describe, expect, it } from "vitest";
import { createProjection, MAX_UNTRUSTED_AUTHORS_LISTED, projectComments } from "../../../src/projection/index.ts";
import { comment, cpBody, del, healthBody, policy, up } from "./build-comments.ts";

const A = "implementation-worker";

describe("untrusted authors never drive output", () => {
  it("their checkpoints, health and unreadable comments create no entry; one anomaly line per author with a count", () => {
    const s = projectComments(
      [
        comment(1, cpBody({ agent: "ghost", session: "g1" }), { author: "mallory" }),
        comment(2, healthBody({ agent: "ghost", session: "g2" }), { author: "mallory" }),
        comment(3, "[CHECKPOINT] ghost\nnot json", { author: "Mallory" }),
        comment(4, "ordinary discussion", { author: "mallory" }),
        comment(5, cpBody({ phase: "real" })),
        comment(6, healthBody({ agent: "other" }), { author: "eve" }),
      ],
      policy,
    );
    expect(s.entries.map((e) => e.agent)).toEqual([A]);
    expect(s.anomalies).toEqual([
      {
        kind: "untrusted-author",
        commentId: 3,
        agent: null,
        session: null,
        detail: "3 protocol comments by Mallory, who is not a trusted author; ignored",
        htmlUrl: expect.any(String),
        author: "Mallory",
      },
      { kind: "untrusted-author", commentId: 6, agent: null, session: null, detail: "1 protocol comment by eve, who is not a trusted author; ignored", htmlUrl: expect.any(String), author: "eve" },
    ]);
  });

  it("a delete takes the comment out of its author's count; the last one takes the line away", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody(), { author: "mallory" })), up(comment(2, cpBody(), { author: "mallory" }))]);
    expect(p.anomalies()[0]?.detail).toMatch(/^2 protocol comments by mallory/);
    p.apply(del(2));
    expect(p.anomalies()).toMatchObject([{ commentId: 1, detail: expect.stringMatching(/^1 protocol comment by mallory/) }]);
    p.apply(del(1));
    expect(p.anomalies()).toEqual([]);
    expect(p.snapshot().entries).toEqual([]);
  });

  it(`lists at most ${MAX_UNTRUSTED_AUTHORS_LISTED} authors (the most recent) after trusted anomalies, and sums the rest`, () => {
    const n = MAX_UNTRUSTED_AUTHORS_LISTED + 50;
    const comments = Array.from({ length: n }, (_, i) => comment(i + 10, cpBody({ agent: `a${i}` }), { author: `u${i}` }));
    comments.push(comment(1, cpBody({ phase: "x" }), { createdAt: "2026-11-29T10:00:01Z", updatedAt: "2026-11-29T11:00:00Z" })); // edited: trusted anomaly
    const s = projectComments(comments, policy);
    expect(s.anomalies).toHaveLength(1 + 1 + MAX_UNTRUSTED_AUTHORS_LISTED);
    expect(s.anomalies[0]).toMatchObject({ kind: "edited", commentId: 1 });
    expect(s.anomalies[1]).toMatchObject({ kind: "untrusted-author", detail: "50 more untrusted authors wrote 50 protocol comments; ignored" });
    expect(s.anomalies.at(-1)).toMatchObject({ commentId: n + 9, detail: expect.stringContaining(`by u${n - 1},`) });
    expect(s.entries.map((e) => [e.agent, e.latest])).toEqual([[A, null]]); // only the trusted (edited) comment's entry
  });
});

describe("oversized comments", () => {
  const limits = { readerLimits: { maxBodyBytes: 1000 } };
  it("a trusted author's comment over the reader's limit is skipped as one `oversized` anomaly; the answer is still right", () => {
    const big = `[CHECKPOINT] ${A}\nSession: s1\nPhase: forged\n${"y".repeat(2000)}`;
    const s = projectComments([comment(1, cpBody({ phase: "ok" })), comment(2, big), comment(3, "z".repeat(5000))], policy, limits);
    expect(s.entries.map((e) => e.latest?.phase)).toEqual(["ok"]);
    expect(s.anomalies.map((a) => [a.commentId, a.kind, a.agent])).toEqual([
      [2, "oversized", null],
      [3, "oversized", null],
    ]);
    expect(s.anomalies[0]?.detail).toMatch(/over the reader's 1000-byte limit; skipped/);
  });

  it("an untrusted author's oversized comment is counted against the author, even when it is not the protocol's", () => {
    const s = projectComments([comment(1, "z".repeat(5000), { author: "mallory" })], policy, limits);
    expect(s.anomalies).toMatchObject([{ kind: "untrusted-author", detail: "1 protocol comment, 1 over the size limit, by mallory, who is not a trusted author; ignored" }]);
  });

  it("an edit that shrinks an oversized comment replaces its anomaly", () => {
    const p = createProjection(policy, limits);
    p.apply(up(comment(1, "z".repeat(5000))));
    expect(p.anomalies().map((a) => a.kind)).toEqual(["oversized"]);
    p.apply(up(comment(1, "small now", { updatedAt: "2026-11-29T12:00:00Z" })));
    expect(p.anomalies()).toEqual([]);
  });
});
