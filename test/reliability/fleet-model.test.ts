// The mixed-fleet suite's reference model: the rules it encodes, from docs/dashboard.md and docs/reliability.md.
import { describe, expect, it } from "vitest";
import { FleetModel, RECENT_BELIEVED } from "../../scripts/reliability/fleet/model.ts";
import { RECENT_CHECKPOINTS } from "../../src/projection/projection-snapshot.ts";
import { scheduleSeed } from "../../scripts/reliability/fleet/run-fleet.ts";

const A = "implementation-worker";
const S = "s1";

describe("fleet reference model", () => {
  it("the newest save is the answer; none before any save", () => {
    const m = new FleetModel();
    expect(m.answer(A, S)).toEqual({ n: null, phase: null, directive: null });
    m.save(A, S, { n: 1, phase: "clone_complete", epoch: 1 });
    m.save(A, S, { n: 2, phase: "subtask_1_complete", epoch: 1 });
    expect(m.answer(A, S)).toEqual({ n: 2, phase: "subtask_1_complete", directive: null });
  });

  it("a save below the fence is a zombie, a seed (epoch 0) save too once a take-over raised it", () => {
    const m = new FleetModel();
    expect(m.save(A, S, { n: 1, phase: "p", epoch: 0 })).toBe(true);
    expect(m.save(A, S, { n: 2, phase: "p", epoch: 2 })).toBe(true);
    expect(m.save(A, S, { n: 3, phase: "p", epoch: 1 })).toBe(false);
    expect(m.save(A, S, { n: 4, phase: "p", epoch: 0 })).toBe(false);
    expect(m.answer(A, S).n).toBe(2);
    expect(m.zombies).toBe(2);
  });

  it("rewind: back to the target with a fence above every epoch, until a save at or above it", () => {
    const m = new FleetModel();
    for (const n of [1, 2, 3]) m.save(A, S, { n, phase: `p${n}`, epoch: 1 });
    expect(m.rewindTargets(A, S).map((t) => t.n)).toEqual([2, 1]);
    m.rewind(A, S, { n: 1, phase: "p1", epoch: 1 });
    expect(m.answer(A, S)).toEqual({ n: 1, phase: "p1", directive: "rewind" });
    expect(m.fence(A, S)).toBe(3);
    // The rewound worker (epoch 1) is fenced off, and so is one whose resume wrote nothing (epoch 2,
    // issue 28.5); the next worker (epoch 3) ends the rewind.
    expect(m.save(A, S, { n: 4, phase: "p4", epoch: 1 })).toBe(false);
    expect(m.save(A, S, { n: 6, phase: "p6", epoch: 2 })).toBe(false);
    expect(m.answer(A, S)).toEqual({ n: 1, phase: "p1", directive: "rewind" });
    expect(m.save(A, S, { n: 5, phase: "p5", epoch: 3 })).toBe(true);
    expect(m.answer(A, S)).toEqual({ n: 5, phase: "p5", directive: null });
  });

  it("rewind targets: the four believed before the current one, as the bot's fold keeps five (seed 2031, schedule 91)", () => {
    const m = new FleetModel();
    for (const n of [1, 2, 3, 4, 5, 6]) m.save(A, S, { n, phase: `p${n}`, epoch: 1 });
    // Five back (n=1) was offered before, and the bot refused it: its fold no longer holds it.
    expect(m.rewindTargets(A, S).map((t) => t.n)).toEqual([5, 4, 3, 2]);
    expect(RECENT_BELIEVED).toBe(RECENT_CHECKPOINTS);
    // After a rewind, only the believed older than the target and still within the window are offered.
    m.rewind(A, S, { n: 3, phase: "p3", epoch: 1 });
    expect(m.rewindTargets(A, S).map((t) => t.n)).toEqual([2]);
  });

  it("release raises the fence and keeps the resume point; pause is reported first and stays until unpaused", () => {
    const m = new FleetModel();
    m.save(A, S, { n: 1, phase: "p1", epoch: 1 });
    m.release(A, S);
    m.pause(A, S);
    expect(m.answer(A, S)).toEqual({ n: 1, phase: "p1", directive: "pause" });
    expect(m.fence(A, S)).toBe(3);
    m.save(A, S, { n: 2, phase: "p2", epoch: 3 });
    expect(m.answer(A, S)).toEqual({ n: 2, phase: "p2", directive: "pause" });
    m.unpause(A, S);
    expect(m.answer(A, S).directive).toBeNull();
  });

  it("agents do not share truth", () => {
    const m = new FleetModel();
    m.save(A, S, { n: 1, phase: "p", epoch: 1 });
    m.pause(A, S);
    expect(m.answer(A, "s2")).toEqual({ n: null, phase: null, directive: null });
    expect(m.answer("other", S)).toEqual({ n: null, phase: null, directive: null });
  });

  it("schedule seeds are fixed per run seed and index, and differ between schedules", () => {
    expect(scheduleSeed(1, 0)).toBe(scheduleSeed(1, 0));
    const seeds = new Set(Array.from({ length: 200 }, (_, i) => scheduleSeed(1, i)));
    expect(seeds.size).toBe(200);
    expect(scheduleSeed(2, 0)).not.toBe(scheduleSeed(1, 0));
  });
});
