import { describe, expect, it } from "vitest";
import { createProjection } from "../../../src/projection/index.ts";
import { comment, cpBody, policy, up } from "./build-comments.ts";

/**
 * A reconcile judges deleted only what it held before its listing began: a comment stored meanwhile
 * (another replica's, the bot's own carried copy) may be newer than the page that would have listed it.
 */
describe("Projection.retainOnly with upTo", () => {
  it("keeps a comment newer than upTo that the listing did not return, and removes an older one", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody({ phase: "clone_complete", seq: 1, id: "cp-00000001" }))), up(comment(2, cpBody({ phase: "phase_2_subtasks", seq: 2, id: "cp-00000002" })))]);
    // Held before the listing: 1 and 2; the listing returned neither 1 nor the new 3.
    p.applyAll([up(comment(3, cpBody({ phase: "phase_3_commit", seq: 3, id: "cp-00000003" })))]);
    expect(p.retainOnly(new Set([2]), 2)).toBe(true);
    expect(p.latest("implementation-worker", "s1")?.commentId).toBe(3);
    p.retainOnly(new Set([2]));
    expect(p.latest("implementation-worker", "s1")?.commentId).toBe(2);
  });
});
