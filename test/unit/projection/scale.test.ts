import { describe, expect, it } from "vitest";
import { createProjection, projectComments } from "../../../src/projection/index.ts";
import type { CommentRecord } from "../../../src/projection/index.ts";
import { at, cpBody, healthBody, policy } from "./build-comments.ts";

function issue(n: number): CommentRecord[] {
  const out: CommentRecord[] = [];
  for (let id = 1; id <= n; id++) {
    const agent = `worker-${id % 7}`;
    const body =
      id % 3 === 0
        ? cpBody({ agent, session: `s${id % 5}`, phase: `step_${id}`, seq: Math.floor(id / 35) + 1, id: `cp-${String(id).padStart(8, "0")}` })
        : id % 3 === 1
          ? healthBody({ agent, session: `s${id % 5}` })
          : `ordinary discussion ${id} `.repeat(20);
    out.push({ id, author: id % 11 === 0 ? "mallory" : "worker", body, createdAt: at(id), updatedAt: at(id) });
  }
  return out;
}

// Speed is measured by `npm run bench`, not asserted here: timed assertions flake on a loaded 2-core CI.
describe("scale", () => {
  it("folds 50,000 comments, and 20,000 checkpoints of one agent+session, correctly", () => {
    const comments = issue(50_000);
    const snap = projectComments(comments, policy);
    expect(snap.comments).toBe(50_000);
    expect(snap.entries.length).toBe(35);

    // One agent+session with 20,000 checkpoints, then events read one by one.
    const p = createProjection(policy);
    for (let id = 1; id <= 20_000; id++) p.apply({ type: "upsert", comment: { id, author: "worker", body: cpBody({ seq: id }), createdAt: at(id), updatedAt: at(id) } });
    for (let id = 20_001; id <= 20_050; id++) {
      p.apply({ type: "upsert", comment: { id, author: "worker", body: cpBody({ seq: id }), createdAt: at(id), updatedAt: at(id) } });
      p.resume("implementation-worker", "s1", {});
    }
    expect(p.latest("implementation-worker", "s1")?.seq).toBe(20_050);
  });
});
