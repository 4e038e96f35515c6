import { describe, expect, it } from "vitest";
import { createProjection, projectComments } from "../../../src/projection/index.ts";
import type { Anomaly } from "../../../src/projection/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP } from "../../../src/protocol/index.ts";
import { ProtocolInputError } from "../../../src/errors.ts";
import { KEY, at, comment, cpBody, del, healthBody, policy, signedPolicy, up } from "./build-comments.ts";

const A = "implementation-worker";
const kinds = (as: Anomaly[]) => as.map((a) => [a.commentId, a.kind]);

describe("server order", () => {
  it("newest = highest comment id, never the Time: string (the seed sorts '…T10:00:00Z' after '…T10:00:00.500000Z')", () => {
    const p = createProjection(policy);
    p.apply(up(comment(1, cpBody({ phase: "clone_complete", timestamp: "2026-11-29T10:00:00Z" }))));
    p.apply(up(comment(2, cpBody({ phase: "subtask_1_complete", timestamp: "2026-11-29T10:00:00.500000Z" }))));
    expect(p.latest(A, "s1")?.phase).toBe("subtask_1_complete");
    // Even a Time string from the far past loses nothing: id 3 wins.
    p.apply(up(comment(3, cpBody({ phase: "commit_complete", timestamp: "1999-01-01T00:00:00Z" }))));
    expect(p.latest(A, "s1")?.commentId).toBe(3);
  });

  it("uses comment id even when server createdAt disagrees", () => {
    const s = projectComments([comment(10, cpBody({ phase: "pr_created" }), { createdAt: at(5) }), comment(9, cpBody({ phase: "clone_complete" }), { createdAt: at(50) })], policy);
    expect(s.entries[0]?.latest?.phase).toBe("pr_created");
  });

  it("has no 24h window: a month-old checkpoint still resumes", () => {
    const old = comment(1, cpBody({ phase: "commit_complete" }), { createdAt: at(-31 * 86400) });
    const p = createProjection(policy);
    p.apply(up(old));
    const r = p.resume(A, "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
    expect(r).toEqual({ resume_point: "phase_4_pr", phase: "commit_complete", state: { branch_name: "feat/x" }, checkpoint: { commentId: 1 }, directive: null, not_used: [] });
  });
});

describe("resume", () => {
  it("starts fresh with no checkpoint", () => {
    expect(createProjection(policy).resume(A, "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).toEqual({
      resume_point: "start",
      phase: "fresh_start",
      state: {},
      checkpoint: null,
      directive: null,
      not_used: [],
    });
  });

  it("reports id, seq and epoch of the checkpoint it resumes from", () => {
    const p = createProjection(policy);
    p.apply(up(comment(4, cpBody({ id: "cp-00000001", seq: 3, epoch: 2, phase: "pr_created" }))));
    expect(p.resume(A, "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).toMatchObject({
      resume_point: "phase_4_monitoring",
      checkpoint: { commentId: 4, id: "cp-00000001", seq: 3, epoch: 2 },
    });
  });

  it("keeps sessions and agents apart; latest(agent) without session picks the newest across sessions", () => {
    const p = createProjection(policy);
    p.applyAll([
      up(comment(1, cpBody({ session: "s1", phase: "a1" }))),
      up(comment(2, cpBody({ session: "s2", phase: "a2" }))),
      up(comment(3, cpBody({ agent: "pr-self-reviewer", session: "s1", phase: "review_posted" }))),
    ]);
    expect(p.latest(A, "s1")?.phase).toBe("a1");
    expect(p.latest(A)?.phase).toBe("a2");
    expect(p.latest("pr-self-reviewer")?.phase).toBe("review_posted");
    expect(p.latest("nobody")).toBeNull();
    expect(p.snapshot().entries.map((e) => [e.agent, e.session])).toEqual([
      [A, "s1"],
      [A, "s2"],
      ["pr-self-reviewer", "s1"],
    ]);
  });

  it("falls back to the previous trusted checkpoint when the newest is deleted", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody({ phase: "clone_complete" }))), up(comment(2, cpBody({ phase: "commit_complete", seq: 2 })))]);
    expect(p.latest(A, "s1")?.commentId).toBe(2);
    expect(p.apply(del(2))).toBe(true);
    expect(p.latest(A, "s1")?.phase).toBe("clone_complete");
    const a = p.anomalies();
    expect(a).toEqual([
      {
        kind: "deleted-checkpoint",
        commentId: 2,
        agent: A,
        session: "s1",
        detail: 'checkpoint "commit_complete" (seq 2) was deleted',
        htmlUrl: "https://forge.example/o/r/issues/1#issuecomment-2",
      },
    ]);
    expect(p.apply(del(1))).toBe(true);
    expect(p.snapshot().entries).toEqual([]);
    expect(p.resume(A, "s1", {}).phase).toBe("fresh_start");
  });
});

describe("trust rules", () => {
  it("believes only trusted authors, compared case-insensitively", () => {
    const s = projectComments([comment(1, cpBody({ phase: "ok" }), { author: "ci-bot" }), comment(2, cpBody({ phase: "forged" }), { author: "mallory" })], policy);
    const e = s.entries[0];
    expect(e?.latest?.phase).toBe("ok");
    // Untrusted comments are counted per author, never against an entry (they do not drive output).
    expect(e?.counts).toEqual({ checkpoints: 1, health: 0, invalid: 0, untrusted: 0 });
    expect(kinds(s.anomalies)).toEqual([[2, "untrusted-author"]]);
    expect(s.anomalies[0]).toMatchObject({ agent: null, session: null, detail: "1 protocol comment by mallory, who is not a trusted author; ignored" });
  });

  it("does not believe an edited checkpoint (updatedAt differs from createdAt)", () => {
    const s = projectComments([comment(1, cpBody({ phase: "a" })), comment(2, cpBody({ phase: "b" }), { createdAt: at(2), updatedAt: at(99) })], policy);
    expect(s.entries[0]?.latest?.commentId).toBe(1);
    expect(kinds(s.anomalies)).toEqual([[2, "edited"]]);
  });

  it("does not believe a checkpoint whose body changed between versions seen, even with equal timestamps", () => {
    const p = createProjection(policy);
    p.apply(up(comment(1, cpBody({ phase: "a" }))));
    expect(p.latest(A, "s1")?.phase).toBe("a");
    expect(p.apply(up(comment(1, cpBody({ phase: "b" }))))).toBe(true);
    expect(p.latest(A, "s1")).toBeNull();
    expect(kinds(p.anomalies())).toEqual([[1, "edited"]]);
  });

  it("with a signing key believes only checkpoints whose signature verifies", () => {
    const s = projectComments([comment(1, cpBody({ phase: "good", sign: KEY })), comment(2, cpBody({ phase: "unsigned" })), comment(3, cpBody({ phase: "forged", sign: "wrong-key" }))], signedPolicy);
    expect(s.entries[0]?.latest?.phase).toBe("good");
    expect(s.entries[0]?.counts.untrusted).toBe(2);
    expect(kinds(s.anomalies)).toEqual([
      [2, "unsigned"],
      [3, "bad-signature"],
    ]);
  });

  it("without a signing key ignores signatures", () => {
    const s = projectComments([comment(1, cpBody({ phase: "x", sign: "any" }))], policy);
    expect(s.entries[0]?.latest?.phase).toBe("x");
    expect(s.anomalies).toEqual([]);
  });

  it("drops duplicate Ids: the lowest comment id counts", () => {
    const body = cpBody({ id: "cp-dup-0001", phase: "a", seq: 1 });
    const s = projectComments([comment(5, body), comment(7, body), comment(6, cpBody({ id: "cp-other-01", phase: "b", seq: 2 }))], policy);
    const e = s.entries[0];
    expect(e?.latest?.commentId).toBe(6);
    expect(e?.counts).toEqual({ checkpoints: 3, health: 0, invalid: 0, untrusted: 1 });
    expect(s.anomalies).toMatchObject([{ kind: "duplicate-id", commentId: 7, detail: "Id cp-dup-0001 already used by comment 5; this copy is ignored" }]);
  });

  it("an untrusted copy of an Id cannot knock out the trusted original", () => {
    const body = cpBody({ id: "cp-dup-0001", phase: "a" });
    const s = projectComments([comment(5, body, { author: "mallory" }), comment(7, body)], policy);
    expect(s.entries[0]?.latest?.commentId).toBe(7);
    expect(kinds(s.anomalies)).toEqual([[5, "untrusted-author"]]);
  });

  it("never resumes from a zombie (epoch below one already seen; missing epoch = 0)", () => {
    const s = projectComments(
      [comment(1, cpBody({ phase: "p1" })), comment(2, cpBody({ phase: "p2", epoch: 1 })), comment(3, cpBody({ phase: "old-worker" })), comment(4, cpBody({ phase: "old-worker", epoch: 0 }))],
      policy,
    );
    expect(s.entries[0]?.latest?.phase).toBe("p2");
    expect(s.entries[0]?.maxEpoch).toBe(1);
    expect(kinds(s.anomalies)).toEqual([
      [3, "zombie"],
      [4, "zombie"],
    ]);
    expect(s.entries[0]?.counts.untrusted).toBe(2);
    // Says why: a 1.0 writer (no Epoch header) is told apart from a superseded worker.
    const note = (id: number) => s.anomalies.find((a) => a.commentId === id)?.detail ?? "";
    expect(note(3)).toMatch(/no Epoch header \(a 1\.0 writer/);
    expect(note(4)).toMatch(/epoch 0 is below epoch 1/);
  });

  it("an untrusted author's high epoch does not make trusted checkpoints zombies", () => {
    const s = projectComments([comment(1, cpBody({ epoch: 9 }), { author: "mallory" }), comment(2, cpBody({ phase: "real", epoch: 0 }))], policy);
    expect(s.entries[0]?.latest?.phase).toBe("real");
  });
});

describe("seq", () => {
  const run = (seqs: Array<[number, number | undefined, number?]>) =>
    projectComments(
      seqs.map(([id, seq, epoch]) => comment(id, cpBody({ phase: `p${id}`, id: `cp-seq-${String(id).padStart(4, "0")}`, ...(seq ? { seq } : {}), ...(epoch !== undefined ? { epoch } : {}) }))),
      policy,
    );

  it("prev+1 is normal, a checkpoint without seq is skipped", () => {
    expect(
      run([
        [1, 1],
        [2, undefined],
        [3, 2],
        [4, 3],
      ]).anomalies,
    ).toEqual([]);
  });

  it("flags a gap but still trusts the checkpoint", () => {
    const s = run([
      [1, 1],
      [2, 4],
    ]);
    expect(s.anomalies).toMatchObject([{ kind: "seq-gap", commentId: 2, detail: "seq 4 follows seq 1: 2 checkpoint(s) missing" }]);
    expect(s.entries[0]?.latest?.commentId).toBe(2);
  });

  it("flags a fork (seq not above prev, other id); the newest comment stays the resume point", () => {
    const s = run([
      [1, 1],
      [2, 2],
      [3, 2],
    ]);
    expect(kinds(s.anomalies)).toEqual([[3, "seq-fork"]]);
    expect(s.entries[0]?.latest?.commentId).toBe(3);
    expect(
      kinds(
        run([
          [1, 5],
          [2, 3],
        ]).anomalies,
      ),
    ).toEqual([[2, "seq-fork"]]);
  });

  it("a new higher epoch continuing prev+1 is normal; restarting the count is a fork", () => {
    expect(
      run([
        [1, 1, 0],
        [2, 2, 0],
        [3, 3, 1],
      ]).anomalies,
    ).toEqual([]);
    expect(
      kinds(
        run([
          [1, 1, 0],
          [2, 2, 0],
          [3, 2, 1],
        ]).anomalies,
      ),
    ).toEqual([[3, "seq-fork"]]);
  });

  it("a zombie's seq does not count", () => {
    expect(
      kinds(
        run([
          [1, 1, 1],
          [2, 2, 0],
          [3, 2, 1],
        ]).anomalies,
      ),
    ).toEqual([[2, "zombie"]]);
  });
});

describe("health", () => {
  it("keeps the newest trusted health per agent+session by comment id", () => {
    const s = projectComments(
      [
        comment(1, healthBody({ status: "Active", metrics: { cycle: 1 } })),
        comment(3, healthBody({ status: "Degraded", timestamp: "2020-01-01T00:00:00Z", metrics: { cycle: 2 } })),
        comment(4, healthBody({ status: "Forged" }), { author: "mallory" }),
      ],
      policy,
    );
    const e = s.entries[0];
    expect(e?.health).toEqual({
      commentId: 3,
      status: "Degraded",
      metrics: { cycle: 2 },
      timestamp: "2020-01-01T00:00:00Z",
      createdAt: new Date(at(3)).toISOString(),
      htmlUrl: "https://forge.example/o/r/issues/1#issuecomment-3",
    });
    expect(e?.latest).toBeNull();
    expect(e?.counts).toEqual({ checkpoints: 0, health: 2, invalid: 0, untrusted: 0 });
    expect(kinds(s.anomalies)).toEqual([[4, "untrusted-author"]]);
  });

  it("ignores an edited health signal", () => {
    const s = projectComments([comment(1, healthBody(), { createdAt: at(1), updatedAt: at(2) })], policy);
    expect(s.entries[0]?.health).toBeNull();
    expect(kinds(s.anomalies)).toEqual([[1, "edited"]]);
  });

  it("lastSignalAt and intervals come from trusted checkpoints and health in server time", () => {
    const s = projectComments(
      [comment(1, cpBody()), comment(2, healthBody(), { createdAt: at(60) }), comment(3, cpBody(), { author: "mallory", createdAt: at(500) }), comment(4, cpBody(), { createdAt: at(180) })],
      policy,
    );
    expect(s.entries[0]?.lastSignalAt).toBe(new Date(at(180)).toISOString());
    expect(s.entries[0]?.intervalsMs).toEqual([59_000, 120_000]);
  });

  it("keeps only the last 20 intervals", () => {
    const s = projectComments(
      Array.from({ length: 30 }, (_, i) => comment(i + 1, healthBody(), { createdAt: at(i * i) })),
      policy,
    );
    const iv = s.entries[0]?.intervalsMs ?? [];
    expect(iv).toHaveLength(20);
    expect(iv[19]).toBe((29 * 29 - 28 * 28) * 1000);
  });
});

describe("invalid comments", () => {
  it("counts an unreadable checkpoint against its agent+session when the Session line is there", () => {
    const broken = cpBody().replace('"feat/x"', "feat/x");
    const s = projectComments([comment(1, broken), comment(2, "[CHECKPOINT]\nno agent"), comment(3, "just chatting [CHECKPOINT]")], policy);
    expect(s.entries[0]?.counts.invalid).toBe(1);
    expect(s.entries[0]?.latest).toBeNull();
    expect(s.anomalies.map((a) => [a.commentId, a.kind, a.agent, a.session])).toEqual([
      [1, "invalid", A, "s1"],
      [2, "invalid", null, null],
    ]);
    expect(s.anomalies[0]?.detail).toMatch(/^unreadable \[CHECKPOINT\]: broken JSON/);
    expect(s.comments).toBe(3);
  });
});

describe("events", () => {
  it("is idempotent: the same upsert twice changes nothing", () => {
    const p = createProjection(policy);
    const c = comment(1, cpBody());
    expect(p.apply(up(c))).toBe(true);
    const before = p.snapshot();
    expect(p.apply(up(c))).toBe(false);
    expect(p.snapshot()).toEqual(before);
  });

  it("an older version arriving after a newer one does not regress it", () => {
    const v1 = comment(1, "hello", { createdAt: at(1), updatedAt: at(1) });
    const v2 = { ...v1, body: cpBody({ phase: "x" }), updatedAt: at(5) };
    const p = createProjection(policy);
    p.apply(up(v2));
    expect(p.apply(up(v1))).toBe(true); // a second body was seen: already edited, flag stays
    expect(p.snapshot()).toEqual(projectComments([v2], policy));
    expect(kinds(p.anomalies())).toEqual([[1, "edited"]]);
  });

  it("breaks ties at equal updatedAt by the larger body digest, whatever the order", () => {
    const a = comment(1, cpBody({ phase: "a" }));
    const b = { ...a, body: cpBody({ phase: "b" }) };
    const p = createProjection(policy);
    p.applyAll([up(a), up(b)]);
    const q = createProjection(policy);
    q.applyAll([up(b), up(a)]);
    expect(p.snapshot()).toEqual(q.snapshot());
  });

  it("tombstones deletes: a late upsert does not resurrect, and still reports what was deleted", () => {
    const p = createProjection(policy);
    expect(p.apply(del(1))).toBe(true);
    expect(p.apply(del(1))).toBe(false);
    expect(p.apply(up(comment(1, cpBody({ phase: "gone" }))))).toBe(true);
    expect(p.apply(up(comment(1, cpBody({ phase: "gone" }))))).toBe(false);
    const s = p.snapshot();
    expect(s.entries).toEqual([]);
    expect(s.comments).toBe(0);
    expect(s.anomalies).toMatchObject([{ kind: "deleted-checkpoint", commentId: 1, agent: A, session: "s1" }]);
  });

  it("deleting a non-protocol comment leaves no anomaly; watermark follows live comments", () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(1, cpBody())), up(comment(2, "lgtm", { updatedAt: at(900) }))]);
    expect(p.watermark()).toBe(2);
    expect(p.snapshot().watermarkUpdatedAt).toBe(new Date(at(900)).toISOString());
    p.apply(del(2));
    expect(p.watermark()).toBe(1);
    expect(p.snapshot().watermarkUpdatedAt).toBe(new Date(at(1)).toISOString());
    expect(p.anomalies()).toEqual([]);
  });

  it("watermarkUpdatedAt() is the snapshot's, without building it, through edits, deletes and restores", () => {
    const p = createProjection(policy, { hotRecords: 2 });
    const same = () => expect(p.watermarkUpdatedAt()).toBe(p.snapshot().watermarkUpdatedAt);
    expect(p.watermarkUpdatedAt()).toBeNull();
    same();
    for (let id = 1; id <= 6; id++) {
      p.apply(up(comment(id, cpBody({ phase: `p${id}` }), { updatedAt: at(id * 10) })));
      same();
    }
    expect(p.watermarkUpdatedAt()).toBe(new Date(at(60)).toISOString());
    p.apply(up(comment(2, cpBody({ phase: "edited" }), { updatedAt: at(500) }))); // an old comment edited last
    expect(p.watermarkUpdatedAt()).toBe(new Date(at(500)).toISOString());
    same();
    p.apply(del(2));
    expect(p.watermarkUpdatedAt()).toBe(new Date(at(60)).toISOString());
    same();
    const q = createProjection(policy);
    q.restore({ id: 7, author: "ci-bot", createdAt: at(70), updatedAt: at(700), hash: "x", multi: false, body: null, deleted: false });
    expect(q.watermarkUpdatedAt()).toBe(new Date(at(700)).toISOString());
    expect(q.watermarkUpdatedAt()).toBe(q.snapshot().watermarkUpdatedAt);
    q.apply(del(7));
    expect(q.watermarkUpdatedAt()).toBeNull();
  });

  it("replaceAll reconciles: comments not listed are deleted for good", () => {
    const p = createProjection(policy);
    const c1 = comment(1, cpBody({ phase: "a" }));
    const c2 = comment(2, cpBody({ phase: "b" }));
    p.applyAll([up(c1), up(c2)]);
    expect(p.replaceAll([c1])).toBe(true);
    expect(p.latest(A, "s1")?.phase).toBe("a");
    expect(p.replaceAll([c1])).toBe(false);
    p.apply(up(c2));
    expect(p.latest(A, "s1")?.phase).toBe("a");
  });

  it("a checkpoint edited into plain text disappears; plain text edited into a checkpoint is not believed", () => {
    const p = createProjection(policy);
    const c = comment(1, cpBody(), { createdAt: at(1) });
    p.apply(up(c));
    p.apply(up({ ...c, body: "never mind", updatedAt: at(2) }));
    expect(p.snapshot().entries).toEqual([]);
    const q = projectComments([{ ...comment(2, cpBody()), createdAt: at(2), updatedAt: at(3) }], policy);
    expect(q.entries[0]?.latest).toBeNull();
  });

  it("rejects malformed events loudly", () => {
    const p = createProjection(policy);
    expect(() => p.apply(up({ ...comment(1, "x"), updatedAt: "yesterday" }))).toThrow(ProtocolInputError);
    expect(() => p.apply(del(-1))).toThrow(ProtocolInputError);
  });

  it("snapshots are plain JSON", () => {
    const s = projectComments([comment(1, cpBody({ seq: 1 })), comment(2, healthBody())], policy);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});
