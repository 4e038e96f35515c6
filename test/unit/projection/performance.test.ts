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

describe("performance", () => {
  it("folds 50,000 comments in well under the budget, and incremental updates stay cheap", () => {
    const comments = issue(50_000);
    const t0 = performance.now();
    const snap = projectComments(comments, policy);
    const cold = performance.now() - t0;
    expect(snap.comments).toBe(50_000);
    expect(snap.entries.length).toBe(35);
    expect(cold).toBeLessThan(8_000);

    // One agent+session with 20,000 checkpoints: each event plus a read re-derives one key.
    const p = createProjection(policy);
    const t1 = performance.now();
    for (let id = 1; id <= 20_000; id++) p.apply({ type: "upsert", comment: { id, author: "worker", body: cpBody({ seq: id }), createdAt: at(id), updatedAt: at(id) } });
    const bulk = performance.now() - t1;
    const t2 = performance.now();
    for (let id = 20_001; id <= 20_050; id++) {
      p.apply({ type: "upsert", comment: { id, author: "worker", body: cpBody({ seq: id }), createdAt: at(id), updatedAt: at(id) } });
      p.resume("implementation-worker", "s1", {});
    }
    const perEvent = (performance.now() - t2) / 50;
    expect(p.latest("implementation-worker", "s1")?.seq).toBe(20_050);
    expect(bulk).toBeLessThan(8_000);
    expect(perEvent).toBeLessThan(20);
  });
});
