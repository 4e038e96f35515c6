import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP } from "../../src/protocol/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "../../src/dashboard/index.ts";
import type { ResumeIndexRef } from "../../src/dashboard/index.ts";
import { ONE_READ_MAX_ID_GAP } from "../../src/session-client/cold-resume.ts";

// Issue 22: with the index comment's id remembered (the CLI's index-refs.json), a cold resume skips
// the read of the issue: one `since` read (the index comment and the tail), plus the pointed
// checkpoint by id when it is older than the tail. At most 2 requests, so at most 2 round trips,
// whatever the checkpoint's age, with or without a signing key, and after a rollover.

const KEY = "cache-signing-key";
const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** An in-memory index-refs cache, shared by every "process" (store) of a test, as the CLI's file is. */
function refCache() {
  const m = new Map<number, ResumeIndexRef>();
  return { get: (i: number) => m.get(i), set: (i: number, r: ResumeIndexRef) => void m.set(i, r), m };
}

for (const key of [undefined, KEY]) {
  describe(`cold resume with a remembered index comment (${key ? "signed" : "unsigned"})`, () => {
    it("after a rollover: ≤ 2 requests for a recent and for an old checkpoint; a stale id falls back", async () => {
      let t = Math.floor(Date.now() / 1000) * 1000;
      w = await botWorld({ resumeIndexInlineMaxBytes: 0, rolloverAt: 50, ...(key ? { signingKey: key } : {}) });
      const world = w;
      world.forge.admin.setClock(() => t);
      const refs = refCache();
      const store = (issue = world.issue) =>
        new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"], indexRefs: refs, ...(key ? { signingKey: key } : {}) });
      // Enough to roll over; the old agent's last checkpoint is carried into the successor.
      await store().save({ agent: "release-manager", session: "s9", phase: "clone_complete", data: { old: true } });
      for (let i = 1; i <= 50; i++) await store().save({ agent: "implementation-worker", session: "s1", phase: `subtask_${(i % 3) + 1}_complete`, data: { i } });
      await world.settle();
      await world.bot.tracker(world.repo, world.issue)?.maintained();
      await world.settle();
      // The first resume follows the chain from the remembered issue to its head, and remembers the head's index comment.
      const first = store();
      expect(await first.resume("release-manager", "s9", MAP)).toMatchObject({ phase: "clone_complete" });
      const head = await first.issueNumber();
      expect(head).not.toBe(world.issue);
      // Seconds later, another save on the head: the index's watermark (the cache's `since`) passes the carried checkpoint.
      t += 5000;
      await store(head).save({ agent: "implementation-worker", session: "s1", phase: "commit_complete", data: {} });
      await world.settle();
      expect(await store(head).resume("release-manager", "s9", MAP)).toMatchObject({ phase: "clone_complete", via: "index" });
      expect(refs.get(head)).toBeDefined();

      // Time passes; more traffic than the one-read gap (fewer than the rollover threshold), then a recent checkpoint and the bot's index write.
      t += 5000;
      for (let i = 0; i < ONE_READ_MAX_ID_GAP + 8; i++) await world.api(world.agentToken).createComment(world.repo, head, `chatter ${i}`);
      await store(head).save({ agent: "implementation-worker", session: "s1", phase: "pr_created", data: { pr: 1 } });
      await world.settle();

      world.forge.admin.resetStats();
      const old = await store(head).resume("release-manager", "s9", MAP);
      expect(old).toMatchObject({ phase: "clone_complete", state: { old: true }, via: "index" });
      let s = world.forge.admin.stats();
      expect(s.totalRequests).toBeLessThanOrEqual(2);
      expect(s.requests["GET /repos/{owner}/{repo}/issues/{index}"]).toBeUndefined();
      expect(s.requests["GET /repos/{owner}/{repo}/issues/comments/{id}"]).toBe(1); // the old checkpoint, by id: it is not in the tail

      world.forge.admin.resetStats();
      expect(await store(head).resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "pr_created", via: "index" });
      s = world.forge.admin.stats();
      expect(s.totalRequests).toBe(1);

      // A remembered id that no longer holds the index (a stale cache): the usual read, and the cache corrected.
      const real = refs.get(head) as ResumeIndexRef;
      refs.set(head, { ...real, comment: real.comment + 1 });
      world.forge.admin.resetStats();
      expect(await store(head).resume("release-manager", "s9", MAP)).toMatchObject({ phase: "clone_complete", via: "index" });
      expect(world.forge.admin.stats().requests["GET /repos/{owner}/{repo}/issues/{index}"]).toBe(1);
      expect(refs.get(head)?.comment).toBe(real.comment);
    });
  });
}

/** Mallory posts her own checkpoint and edits the bot's index comment to point the first entry at it (signature dropped). */
async function malloryRewritesIndex(world: Awaited<ReturnType<typeof botWorld>>, ref: ResumeIndexRef): Promise<{ id: number }> {
  const api = world.api(world.malloryToken);
  const forged = await api.createComment(world.repo, world.issue, "[CHECKPOINT] implementation-worker\nSession: s1\nPhase: pr_created\n");
  const c = await api.getComment(world.repo, ref.comment);
  const from = c.body.indexOf(RESUME_INDEX_OPEN) + RESUME_INDEX_OPEN.length;
  const to = c.body.indexOf(RESUME_INDEX_CLOSE, from);
  const ix = JSON.parse(c.body.slice(from, to)) as { entries: Record<string, unknown>[]; watermark: number; sig?: string };
  Object.assign(ix.entries[0] as object, { commentId: forged.id, maxEpoch: 0 });
  ix.watermark = forged.id;
  delete ix.sig;
  await api.editComment(world.repo, ref.comment, c.body.slice(0, from) + JSON.stringify(ix) + c.body.slice(to));
  return forged;
}

describe("a writer who edits the bot's index comment never gets a forged answer through the cache", () => {
  it("with a key: the edited (unsigned) index is refused on the warm path and on the cold one: every comment is read", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0, signingKey: KEY });
    const world = w;
    world.forge.admin.addCollaborator("agent", "work", "mallory", "write");
    const refs = refCache();
    const store = () =>
      new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue: world.issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"], indexRefs: refs, signingKey: KEY });
    await store().save({ agent: "implementation-worker", session: "s1", phase: "clone_complete", data: {} });
    await store().save({ agent: "implementation-worker", session: "s1", phase: "subtask_1_complete", data: {} });
    await world.settle();
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    const ref = refs.get(world.issue) as ResumeIndexRef;
    // Mallory (a repo writer, not trusted) rewrites the entry to her own checkpoint and drops the signature.
    await malloryRewritesIndex(world, ref);
    world.forge.admin.resetStats();
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "subtask_1_complete", via: "full" });
    expect(world.forge.admin.stats().requests["GET /repos/{owner}/{repo}/issues/{index}"]).toBeGreaterThanOrEqual(1); // the warm path gave up
  });

  it("without a key: the edited index may point back at an older trusted checkpoint (the documented residual), never at hers", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 });
    const world = w;
    world.forge.admin.addCollaborator("agent", "work", "mallory", "write");
    const refs = refCache();
    const store = () => new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue: world.issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"], indexRefs: refs });
    await store().save({ agent: "implementation-worker", session: "s1", phase: "subtask_1_complete", data: {} });
    await world.settle();
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    const ref = refs.get(world.issue) as ResumeIndexRef;
    const forged = await malloryRewritesIndex(world, ref);
    const r = await store().resume("implementation-worker", "s1", MAP);
    expect(r.phase).toBe("subtask_1_complete");
    expect(r.checkpoint?.commentId).not.toBe(forged.id);
  });
});

describe("a remembered index comment after two releases (issue 28, found by the fleet)", () => {
  it("never resumes from a zombie the first release fenced, when the tail starts after that release", async () => {
    let t = Math.floor(Date.now() / 1000) * 1000;
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 });
    const world = w;
    world.forge.admin.setClock(() => t);
    world.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
    world.forge.admin.createUser("alice");
    world.forge.admin.addCollaborator("agent", "work", "alice", "write");
    const alice = world.api(world.forge.admin.createToken("alice"));
    const refs = refCache();
    const reader = () => new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue: world.issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"], indexRefs: refs });
    const worker = reader();
    await worker.resume("implementation-worker", "s1", MAP);
    await worker.save({ agent: "implementation-worker", session: "s1", phase: "clone_complete", data: { n: 1 } });
    await world.settle();
    t += 2000;
    await alice.createComment(world.repo, world.issue, "/checkpost release implementation-worker s1");
    await world.settle();
    t += 2000;
    // The released worker keeps going: a zombie below the first release's fence.
    await worker.save({ agent: "implementation-worker", session: "s1", phase: "pr_created", data: { n: 5 } });
    await world.settle();
    expect(await reader().resume("implementation-worker", "s1", MAP)).toMatchObject({ state: { n: 1 }, directive: { kind: "release" } });
    expect(refs.m.size).toBe(1); // the warm path's `since` is now after the first release
    t += 2000;
    await alice.createComment(world.repo, world.issue, "/checkpost release implementation-worker s1");
    await world.settle();
    expect(await reader().resume("implementation-worker", "s1", MAP)).toMatchObject({ state: { n: 1 }, directive: { kind: "release" } });
  });
});
