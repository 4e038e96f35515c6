import { describe, expect, it } from "vitest";
import { createProjection, isLegacyCheckpoint, MAX_NOT_USED, projectComments } from "../../../src/projection/index.ts";
import type { CommentRecord, LegacyWriters, TrustPolicy } from "../../../src/projection/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatControl, parseCheckpoint, signControl } from "../../../src/protocol/index.ts";
import type { ControlInput } from "../../../src/protocol/index.ts";
import { KEY, comment, cpBody, policy } from "./build-comments.ts";

const A = "implementation-worker";
const M = IMPLEMENTATION_WORKER_PHASE_MAP;

/** The seed's format_checkpoint_comment, as published (no closing fence, no additive headers). */
const seedBody = (phase: string) =>
  `[CHECKPOINT] ${A}\nVersion: 1.0\nPhase: ${phase}\nSession: s1\nTime: 2026-11-29T10:05:00.250000\n\nState Data:\n\`\`\`json\n{\n  "branch_name": "feat/seed"\n}\n\n---\n\nAutomated by CleverAgents Bot Agent: ${A}`;

const ctl = (o: Partial<ControlInput> & Pick<ControlInput, "action">, sign?: string) => {
  const input: ControlInput = { agent: A, session: "s1", timestamp: "2026-11-29T10:00:00Z", by: "alice", ...o };
  return formatControl(sign ? { ...input, signature: signControl({ ...input, version: "1.0" }, sign) } : input);
};

/** How the fence reached epoch 2 before the checkpoint under test (comment 5). */
type FenceSource = "take-over" | "release" | "rewind";
/** Who wrote comment 5. */
type Writer = "seed" | "checkpost-no-epoch" | "checkpost-below" | "checkpost-at-fence";
/** What else is true of comment 5. */
type Trust = "ok" | "edited" | "untrusted" | "signing-key";

const body = (w: Writer, phase: string, sign?: string): string => {
  if (w === "seed") return seedBody(phase);
  const base = { phase, id: "cp-555555555555" as string, ...(sign ? { sign } : {}) };
  if (w === "checkpost-no-epoch") return cpBody(base);
  return cpBody({ ...base, seq: 2, epoch: w === "checkpost-below" ? 1 : 2 });
};

function world(source: FenceSource, w: Writer, trust: Trust, legacyWriters: LegacyWriters): { comments: CommentRecord[]; policy: TrustPolicy } {
  const sign = trust === "signing-key" ? KEY : undefined;
  const fenceBy =
    source === "take-over"
      ? comment(3, cpBody({ phase: "clone_complete", id: "cp-333333333333", seq: 1, epoch: 2, ...(sign ? { sign } : {}) }))
      : comment(3, ctl(source === "release" ? { action: "release", epoch: 2 } : { action: "rewind", target: 1, epoch: 2 }, sign), { author: "CI-Bot" });
  const five = comment(5, body(w, "subtask_1_complete", sign), {
    ...(trust === "untrusted" ? { author: "mallory" } : {}),
    ...(trust === "edited" ? { updatedAt: "2026-11-29T11:00:00Z" } : {}),
  });
  return {
    comments: [comment(1, cpBody({ phase: "clone_complete", id: "cp-111111111111", seq: 1, epoch: 1, ...(sign ? { sign } : {}) })), fenceBy, five],
    policy: { ...policy, ...(sign ? { signingKey: sign } : {}), legacyWriters },
  };
}

describe("CHECKPOST_LEGACY_WRITERS: which checkpoint below a raised fence is believed", () => {
  const sources: FenceSource[] = ["take-over", "release", "rewind"];
  const writers: Writer[] = ["seed", "checkpost-no-epoch", "checkpost-below", "checkpost-at-fence"];
  const trusts: Trust[] = ["ok", "edited", "untrusted", "signing-key"];
  const policies: LegacyWriters[] = ["fence", "accept"];
  const cases = sources.flatMap((s) => writers.flatMap((w) => trusts.flatMap((t) => policies.map((p) => [s, w, t, p] as const))));

  it.each(cases)("fence by %s, comment 5 by %s (%s), policy %s", (source, w, trust, legacyWriters) => {
    const { comments, policy: pol } = world(source, w, trust, legacyWriters);
    const p = createProjection(pol);
    for (const c of comments) p.apply({ type: "upsert", comment: c });
    // Believed: a checkpost writer at the fence; a legacy writer only under accept; never an untrusted,
    // edited or (with a signing key) unsigned one. A checkpost writer below the fence never.
    const believed = trust === "untrusted" || trust === "edited" ? false : w === "checkpost-at-fence" || (w === "seed" && legacyWriters === "accept" && trust === "ok");
    const r = p.resume(A, "s1", M);
    const entry = p.entry(A, "s1");
    // The fence is never lowered by an accepted legacy checkpoint.
    expect(entry?.maxEpoch).toBe(2);
    if (believed) {
      expect(r.checkpoint?.commentId).toBe(5);
      expect(r.phase).toBe("subtask_1_complete");
      expect(r.not_used).toEqual([]);
      expect(r.directive).toBeNull();
      expect(p.anomalies().filter((a) => a.commentId === 5)).toEqual([]);
      return;
    }
    // Not used: the resume point stays where the fence left it, and the answer says why.
    expect(r.checkpoint?.commentId).toBe(source === "take-over" ? 3 : 1);
    if (trust === "untrusted") {
      // An untrusted author's comment is counted against its author and never stored (issue 9's flood):
      // the anomaly list names it, the entry does not.
      expect(r.not_used).toEqual([]);
      expect(p.anomalies()).toContainEqual(expect.objectContaining({ kind: "untrusted-author", commentId: 5 }));
      return;
    }
    expect(r.not_used).toHaveLength(1);
    const n = r.not_used[0];
    expect(n).toMatchObject({ commentId: 5, phase: "subtask_1_complete", legacy: w === "seed", htmlUrl: comments[2]?.htmlUrl });
    if (trust === "edited") expect(n?.kind).toBe("edited");
    else if (trust === "signing-key" && w === "seed") {
      expect(n).toMatchObject({ kind: "unsigned", reason: "legacy writer without Signature while a signing key is configured (a 1.0 writer cannot sign)" });
      expect(n?.policy).toBeUndefined();
    } else {
      expect(n).toMatchObject({ kind: "zombie", fence: 2 });
      if (w === "seed") {
        expect(n?.reason).toBe("legacy writer without Epoch below fence 2");
        expect(n?.policy).toEqual({ setting: "CHECKPOST_LEGACY_WRITERS", value: "fence", change: expect.stringContaining("CHECKPOST_LEGACY_WRITERS=accept") });
      } else {
        // accept changes nothing for a checkpost writer: no policy to point at.
        expect(n?.policy).toBeUndefined();
        expect(n?.reason).toMatch(w === "checkpost-no-epoch" ? /checkpost writer without Epoch below fence 2/ : /epoch 1 below fence 2/);
      }
    }
  });
});

describe("legacy writers: the rest of the rule", () => {
  it("a legacy checkpoint is one with none of checkpost's headers (Id, Seq, Epoch, Signature)", () => {
    expect(isLegacyCheckpoint(parseCheckpoint(seedBody("p")))).toBe(true);
    expect(isLegacyCheckpoint(parseCheckpoint(cpBody({ id: "cp-000000000001" })))).toBe(false);
    expect(isLegacyCheckpoint(parseCheckpoint(cpBody({ seq: 1 })))).toBe(false);
    expect(isLegacyCheckpoint(parseCheckpoint(cpBody({ epoch: 0 })))).toBe(false);
  });

  it("before any fence a legacy checkpoint is believed under both policies", () => {
    for (const legacyWriters of ["fence", "accept"] as const) {
      const s = projectComments([comment(1, cpBody({ phase: "clone_complete" })), comment(2, seedBody("commit_complete"))], { ...policy, legacyWriters });
      expect(s.entries[0]?.latest?.commentId).toBe(2);
      expect(s.anomalies).toEqual([]);
    }
  });

  it("accept: a checkpost zombie after an accepted legacy checkpoint is still fenced, and the fence holds", () => {
    const p = createProjection({ ...policy, legacyWriters: "accept" });
    p.applyAll(
      [
        comment(1, cpBody({ phase: "clone_complete", id: "cp-000000000001", seq: 1, epoch: 3 })),
        comment(2, seedBody("subtask_1_complete")),
        comment(3, cpBody({ phase: "pr_created", id: "cp-000000000003", seq: 2, epoch: 2 })),
      ].map((c) => ({ type: "upsert", comment: c })),
    );
    const r = p.resume(A, "s1", M);
    expect(r.checkpoint?.commentId).toBe(2);
    expect(r.not_used).toMatchObject([{ commentId: 3, kind: "zombie", fence: 3, legacy: false }]);
    expect(p.entry(A, "s1")?.maxEpoch).toBe(3);
  });

  it("accept: an accepted legacy checkpoint ends a pending release (it is a believed checkpoint)", () => {
    const p = createProjection({ ...policy, legacyWriters: "accept" });
    p.applyAll(
      [comment(1, cpBody({ phase: "clone_complete", id: "cp-000000000001", seq: 1, epoch: 1 })), comment(2, ctl({ action: "release", epoch: 2 }), { author: "CI-Bot" })].map((c) => ({
        type: "upsert",
        comment: c,
      })),
    );
    expect(p.resume(A, "s1", M).directive).toMatchObject({ kind: "release", epoch: 2 });
    p.apply({ type: "upsert", comment: comment(3, seedBody("commit_complete")) });
    expect(p.resume(A, "s1", M)).toMatchObject({ checkpoint: { commentId: 3 }, directive: null, not_used: [] });
  });

  it("not_used lists only refused checkpoints newer than the resume point, newest first, at most MAX_NOT_USED", () => {
    const zombies = Array.from({ length: MAX_NOT_USED + 2 }, (_, i) => comment(10 + i, seedBody(`z${i}`)));
    const s = createProjection(policy);
    s.applyAll(
      [
        comment(1, seedBody("before-fence")),
        comment(2, cpBody({ phase: "clone_complete", id: "cp-000000000002", seq: 1, epoch: 1 })),
        comment(3, seedBody("old-zombie")),
        comment(4, cpBody({ phase: "subtask_1_complete", id: "cp-000000000004", seq: 2, epoch: 1 })),
        ...zombies,
      ].map((c) => ({ type: "upsert", comment: c })),
    );
    const r = s.resume(A, "s1", M);
    expect(r.checkpoint?.commentId).toBe(4);
    // Comment 3 is a zombie too, but older than the resume point: not listed.
    expect(r.not_used.map((n) => n.commentId)).toEqual([16, 15, 14, 13, 12]);
    expect(s.entry(A, "s1")?.notUsed).toEqual(r.not_used);
  });
});
