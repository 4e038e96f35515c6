import { afterEach, describe, expect, it } from "vitest";
import { formatCheckpoint, IMPLEMENTATION_WORKER_PHASE_MAP, pythonUtcIsoformat, signCheckpoint } from "../../src/protocol/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";
import { REPO, startReliabilityWorld } from "../../scripts/reliability/reliability-world.ts";
import type { ReliabilityWorld } from "../../scripts/reliability/reliability-world.ts";

let world: ReliabilityWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
const AGENT = "implementation-worker";
const KEY = "k3y-for-tests-0123456789";

describe("what a resuming worker believes", () => {
  it("never resumes from a forged checkpoint by an untrusted author, however new its epoch", async () => {
    world = await startReliabilityWorld();
    const store = world.store();
    const mine = await store.save({ agent: AGENT, session: "s1", phase: "clone_complete", data: { branch_name: "b" } });
    const mallory = new ForgejoApi(new ForgejoClient({ url: world.forge.url, token: world.forge.admin.createToken("mallory") }));
    const forged = formatCheckpoint({
      agent: AGENT,
      session: "s1",
      phase: "pr_created",
      timestamp: pythonUtcIsoformat(new Date()),
      data: { pr_number: 666 },
      id: "cp-forged-0001",
      seq: 99,
      epoch: 99,
    });
    await mallory.createComment(REPO, world.issue, forged);
    const r = await world.store().resume(AGENT, "s1", MAP);
    expect(r.checkpoint?.commentId).toBe(mine.comment_id);
    expect(r.phase).toBe("clone_complete");
    const snap = await world.store().snapshot();
    expect(snap.anomalies.map((a) => a.kind)).toContain("untrusted-author");
  });

  it("never trusts an edited checkpoint (edit seen by time)", async () => {
    world = await startReliabilityWorld();
    const store = world.store();
    const first = await store.save({ agent: AGENT, session: "s1", phase: "clone_complete", data: {} });
    const second = await store.save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: { completed_subtasks: [1] } });
    const later = Date.now() + 5000;
    world.forge.admin.setClock(() => later);
    const edited = (await store.api.readRecord(REPO, second.comment_id)).body.replace("subtask_1_complete", "pr_created");
    await store.api.editRecord(REPO, second.comment_id, edited);
    const r = await world.store().resume(AGENT, "s1", MAP);
    expect(r.checkpoint?.commentId).toBe(first.comment_id);
    expect((await world.store().snapshot()).anomalies).toContainEqual(expect.objectContaining({ kind: "edited", commentId: second.comment_id }));
  });

  it("with a signing key: an edit in the same second breaks the signature; unsigned and wrongly signed are ignored", async () => {
    world = await startReliabilityWorld();
    const signed = world.store({ signingKey: KEY });
    const good = await signed.save({ agent: AGENT, session: "s1", phase: "clone_complete", data: {} });
    const editedOne = await signed.save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: {} });
    const body = (await signed.api.readRecord(REPO, editedOne.comment_id)).body.replace("subtask_1_complete", "pr_created");
    await signed.api.editRecord(REPO, editedOne.comment_id, body);
    const unsigned = await world.store().save({ agent: AGENT, session: "s1", phase: "all_subtasks_complete", data: {} });
    const wrong = await world.store({ signingKey: "not-the-key-0123456789" }).save({ agent: AGENT, session: "s1", phase: "commit_complete", data: {} });
    const r = await world.store({ signingKey: KEY }).resume(AGENT, "s1", MAP);
    expect(r.checkpoint?.commentId).toBe(good.comment_id);
    const kinds = (await world.store({ signingKey: KEY }).snapshot()).anomalies.map((a) => [a.commentId, a.kind]);
    expect(kinds).toContainEqual([unsigned.comment_id, "unsigned"]);
    expect(kinds).toContainEqual([wrong.comment_id, "bad-signature"]);
    expect(kinds.filter(([id]) => id === editedOne.comment_id).map(([, k]) => k)).toEqual([expect.stringMatching(/bad-signature|edited/)]);
    // The signature covers what a reader acts on, so re-signing needs the key.
    expect(signCheckpoint({ agent: AGENT, session: "s1", phase: "pr_created", timestamp: null, data: {} }, KEY)).toMatch(/^hmac-sha256=[0-9a-f]{64}$/);
  });

  it("fences a zombie: after a successor resumes and saves, the old handle's saves are never resumed from", async () => {
    world = await startReliabilityWorld();
    const old = world.store();
    await old.save({ agent: AGENT, session: "s1", phase: "clone_complete", data: {} });
    await old.resume(AGENT, "s1", MAP);
    await old.save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: {} });
    const successor = world.store();
    const taken = await successor.resume(AGENT, "s1", MAP);
    const s = await successor.save({ agent: AGENT, session: "s1", phase: "subtask_2_complete", data: {} });
    expect(s.checkpoint.epoch).toBe(taken.epoch);
    const zombie = await old.save({ agent: AGENT, session: "s1", phase: "pr_created", data: {} });
    expect(zombie.checkpoint.epoch).toBeLessThan(taken.epoch);
    const r = await world.store().resume(AGENT, "s1", MAP);
    expect(r.checkpoint?.commentId).toBe(s.comment_id);
    expect((await world.store().snapshot()).anomalies).toContainEqual(expect.objectContaining({ kind: "zombie", commentId: zombie.comment_id }));
  });
});
