import { describe, expect, it } from "vitest";
import { createProjection, projectComments } from "../../../src/projection/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatControl, signControl } from "../../../src/protocol/index.ts";
import type { ControlInput } from "../../../src/protocol/index.ts";
import { KEY, comment, cpBody, healthBody, policy, signedPolicy, up } from "./build-comments.ts";

const A = "implementation-worker";
const M = IMPLEMENTATION_WORKER_PHASE_MAP;
const ctl = (o: Partial<ControlInput> & Pick<ControlInput, "action">, sign?: string) => {
  const input: ControlInput = { agent: A, session: "s1", timestamp: "2026-11-29T10:00:00Z", by: "alice", ...o };
  return formatControl(sign ? { ...input, signature: signControl({ ...input, version: "1.0" }, sign) } : input);
};
const bot = { author: "CI-Bot" };

describe("[CONTROL] in the projection", () => {
  it("pause sets the directive, unpause clears it", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody({ phase: "clone_complete" }))), up(comment(2, ctl({ action: "pause" }), bot))]);
    expect(p.resume(A, "s1", M).directive).toMatchObject({ kind: "pause", commentId: 2, by: "alice" });
    p.apply(up(comment(3, ctl({ action: "unpause" }), bot)));
    expect(p.resume(A, "s1", M).directive).toBeNull();
  });

  it("rewind goes back to an earlier trusted checkpoint and fences the old worker's next save", () => {
    const p = createProjection(policy);
    p.applyAll([
      up(comment(1, cpBody({ phase: "clone_complete", id: "cp-aaaaaaaaaaaa", epoch: 1, seq: 1 }))),
      up(comment(2, cpBody({ phase: "commit_complete", id: "cp-bbbbbbbbbbbb", epoch: 1, seq: 2 }))),
      up(comment(3, ctl({ action: "rewind", target: 1, targetId: "cp-aaaaaaaaaaaa", epoch: 2 }), bot)),
    ]);
    const r = p.resume(A, "s1", M);
    expect(r).toMatchObject({ phase: "clone_complete", resume_point: "phase_2_subtasks", checkpoint: { commentId: 1 } });
    expect(r.directive).toMatchObject({ kind: "rewind", epoch: 2, to: { commentId: 1, id: "cp-aaaaaaaaaaaa", phase: "clone_complete" } });
    // The old worker (epoch 1) saves again: a zombie, not resumed from.
    p.apply(up(comment(4, cpBody({ phase: "pr_created", id: "cp-cccccccccccc", epoch: 1, seq: 3 }))));
    expect(p.resume(A, "s1", M).checkpoint?.commentId).toBe(1);
    expect(p.anomalies().map((a) => [a.commentId, a.kind])).toContainEqual([4, "zombie"]);
    // A new worker resumed above the fence: its checkpoint is the resume point and the directive is done.
    p.apply(up(comment(5, cpBody({ phase: "subtask_1_complete", id: "cp-dddddddddddd", epoch: 3, seq: 2 }))));
    expect(p.resume(A, "s1", M)).toMatchObject({ phase: "subtask_1_complete", directive: null });
    expect(p.snapshot().entries[0]?.maxEpoch).toBe(3);
  });

  it("rewind to a checkpoint that is not a trusted one of this agent+session is rejected and changes nothing", () => {
    const s = projectComments(
      [comment(1, cpBody({ phase: "clone_complete" }), { author: "mallory" }), comment(2, cpBody({ phase: "commit_complete" })), comment(3, ctl({ action: "rewind", target: 1, epoch: 5 }), bot)],
      policy,
    );
    expect(s.entries[0]?.latest?.commentId).toBe(2);
    expect(s.entries[0]?.maxEpoch).toBe(0);
    expect(s.anomalies.map((a) => [a.commentId, a.kind])).toContainEqual([3, "rejected-control"]);
  });

  it("release fences the current worker at the same resume point, until a new worker checkpoints", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody({ phase: "commit_complete", epoch: 0 }))), up(comment(2, ctl({ action: "release", epoch: 1 }), bot))]);
    expect(p.resume(A, "s1", M)).toMatchObject({ phase: "commit_complete", directive: { kind: "release", epoch: 1 } });
    p.apply(up(comment(3, cpBody({ phase: "pr_created", epoch: 0 }))));
    expect(p.resume(A, "s1", M).phase).toBe("commit_complete");
    p.apply(up(comment(4, cpBody({ phase: "pr_created", epoch: 2 }))));
    expect(p.resume(A, "s1", M)).toMatchObject({ phase: "pr_created", directive: null });
  });

  it("hide lasts until the agent's next trusted signal", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody())), up(comment(2, ctl({ action: "hide" }), bot))]);
    expect(p.snapshot().entries[0]?.control?.hidden?.commentId).toBe(2);
    expect(p.resume(A, "s1", M).directive).toBeNull(); // hide is for the dashboard, not the agent
    p.apply(up(comment(3, healthBody())));
    expect(p.snapshot().entries[0]?.control).toBeUndefined();
  });

  it("ignores controls from untrusted authors, edited ones and, with a key, unsigned or badly signed ones", () => {
    const edited = comment(3, ctl({ action: "pause" }), { ...bot, updatedAt: "2026-11-29T11:00:00Z" });
    const s = projectComments([comment(1, cpBody()), comment(2, ctl({ action: "pause" }), { author: "mallory" }), edited], policy);
    expect(s.entries[0]?.control).toBeUndefined();
    // Trusted authors' anomalies first, then one line per untrusted author (issue 9).
    expect(s.anomalies.map((a) => [a.commentId, a.kind])).toEqual([
      [3, "edited"],
      [2, "untrusted-author"],
    ]);
    const signed = projectComments(
      [comment(1, cpBody({ sign: KEY })), comment(2, ctl({ action: "pause" }), bot), comment(3, ctl({ action: "hide" }, "wrong"), bot), comment(4, ctl({ action: "release", epoch: 1 }, KEY), bot)],
      signedPolicy,
    );
    expect(signed.anomalies.map((a) => [a.commentId, a.kind])).toEqual([
      [2, "unsigned"],
      [3, "bad-signature"],
    ]);
    expect(signed.entries[0]?.control).toMatchObject({ paused: null, hidden: null, pending: { commentId: 4, epoch: 1 } });
  });

  it("lists the last trusted checkpoints newest first as rewind targets", () => {
    const s = projectComments(
      Array.from({ length: 7 }, (_, i) => comment(i + 1, cpBody({ phase: `p${i + 1}` }))),
      policy,
    );
    expect(s.entries[0]?.recent?.map((r) => r.commentId)).toEqual([7, 6, 5, 4, 3]);
  });
});
