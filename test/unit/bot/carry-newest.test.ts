import { describe, expect, it } from "vitest";
import { carryNewest, rollOverIfDue } from "../../../src/bot/upkeep/issue-rollover.ts";
import { createSqliteProjectionStore, issueKey } from "../../../src/bot-state/index.ts";
import { createProjection } from "../../../src/projection/index.ts";
import { formatControl, parseComment } from "../../../src/protocol/index.ts";
import { carriedBody } from "../../../src/chain/carried-body.ts";
import { cpBody } from "../projection/build-comments.ts";
import { FakeIssueHost } from "../../helpers/fake-issue-host.ts";

const repo = { owner: "o", repo: "r" };
const t = (s: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, s)).toISOString();
const upsert = (id: number, author: string, body: string) => ({ type: "upsert" as const, comment: { id, author, body, createdAt: t(id), updatedAt: t(id) } });
const silent = { info: () => {}, warn: () => {} };

/** What a fold of the issue's stored comments holds, as the bot's upkeep hands it to carryNewest. */
async function storedSnapshot(store: ReturnType<typeof createSqliteProjectionStore>, issue: number, policy: { trustedAuthors: Set<string> }) {
  const p = createProjection(policy);
  for (const c of await store.comments(issueKey(repo, issue))) p.restore(c);
  return p.snapshot();
}

/** The old issue #1 holds one checkpoint (comment 5); the successor #2 maybe a copy of it already. */
async function setup(copyBy: string | null) {
  const store = createSqliteProjectionStore(":memory:");
  const lease = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
  if (!lease) throw new Error("no lease");
  const original = cpBody({ phase: "subtask_1_complete", seq: 1, id: "cp-00000005" });
  await store.applyDelivery(issueKey(repo, 1), null, [upsert(5, "worker", original)]);
  if (copyBy) await store.applyDelivery(issueKey(repo, 2), null, [upsert(9, copyBy, carriedBody(original, { issue: 1, commentId: 5 }))]);
  const p = createProjection({ trustedAuthors: new Set(["worker", "bot"]) });
  for (const c of await store.comments(issueKey(repo, 1))) p.restore(c);
  const api = new FakeIssueHost({ login: "bot", firstId: 101 });
  api.addIssue({ number: 2 });
  const posts = api.comments.get(2) ?? [];
  const run = () => carryNewest({ api, store, repo, issue: 1, logger: silent, selfLogin: "bot" }, { name: lease.name, token: lease.token }, p.snapshot(), 2);
  return { store, posts, run };
}

describe("carryNewest", () => {
  it("records a copy the bot already posted (a crash before the record) instead of posting it again", async () => {
    const s = await setup("bot");
    expect(await s.run()).toBe(1);
    expect(s.posts).toEqual([]);
    expect((await s.store.issueMeta(issueKey(repo, 1))).carried).toEqual([{ from: 5, to: 9 }]);
  });

  it("a provenance line in someone else's comment does not stop the carry", async () => {
    const s = await setup("mallory");
    expect(await s.run()).toBe(1);
    expect(s.posts).toHaveLength(1);
    expect((await s.store.issueMeta(issueKey(repo, 1))).carried).toEqual([{ from: 5, to: 101 }]);
    expect(await s.run()).toBe(0); // and once only
  });
});

/**
 * A control recorded on the old issue after the rollover (the person's command reached it as it
 * closed) is state of the session: the late carry (with the head's entries as `newerThan`) brings
 * it into the head, unless the head already has a newer control for that agent+session.
 */
describe("carryNewest, late: a control given on the closed issue", () => {
  const ctl = (action: "pause" | "unpause", s: number) => formatControl({ agent: "implementation-worker", session: "s1", action, by: "alice", timestamp: t(s) });
  async function late(headControl: "none" | "newer-unpause") {
    const store = createSqliteProjectionStore(":memory:");
    const lease = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
    if (!lease) throw new Error("no lease");
    const original = cpBody({ phase: "subtask_1_complete", seq: 1, id: "cp-00000005" });
    // #1: the checkpoint (5, carried at the rollover as 9), then the bot's [CONTROL] pause (12), late.
    await store.applyDelivery(issueKey(repo, 1), null, [upsert(5, "worker", original), upsert(12, "bot", ctl("pause", 12))]);
    await store.updateIssueMeta({ name: lease.name, token: lease.token }, issueKey(repo, 1), { carried: [{ from: 5, to: 9 }] });
    const head = [upsert(9, "bot", carriedBody(original, { issue: 1, commentId: 5 }))];
    if (headControl === "newer-unpause") head.push(upsert(14, "bot", ctl("unpause", 14)));
    await store.applyDelivery(issueKey(repo, 2), null, head);
    const policy = { trustedAuthors: new Set(["worker", "bot"]) };
    const snapOf = (issue: number) => storedSnapshot(store, issue, policy);
    const api = new FakeIssueHost({ login: "bot", firstId: 101 });
    api.addIssue({ number: 2 });
    const posts = api.comments.get(2) ?? [];
    const n = await carryNewest({ api, store, repo, issue: 1, logger: silent, selfLogin: "bot" }, { name: lease.name, token: lease.token }, await snapOf(1), 2, (await snapOf(2)).entries);
    return { n, posts };
  }

  it("carries a pause recorded on the closed issue after the rollover into the head", async () => {
    const r = await late("none");
    expect(r.n).toBe(1);
    expect(r.posts).toHaveLength(1);
    const p = parseComment(r.posts[0]?.body ?? "");
    expect(p.kind === "control" && p.control.action).toBe("pause");
  });

  it("leaves it when the head has a newer control for the agent+session (an unpause)", async () => {
    const r = await late("newer-unpause");
    expect(r.n).toBe(0);
    expect(r.posts).toHaveLength(0);
  });
});

/**
 * The fleet's schedule 104 (seed 200): a rewind to an older checkpoint was recorded on the old issue just
 * after the rollover had carried the newest checkpoint. Controls are state of the session (docs/chain.md):
 * the late carry must bring the rewind's target too, or the rewind cannot name a copy on the head and every
 * reader of the head resumes from the newest checkpoint as if no rewind had been given.
 */
describe("carryNewest, late: a rewind given on the closed issue to a checkpoint not carried", () => {
  /** #1: two checkpoints (the newest at `newestEpoch`); the rollover carried the newest (5 → 9); then the bot's [CONTROL] rewind to 3 (12). */
  async function lateRewind(newestEpoch: number) {
    const store = createSqliteProjectionStore(":memory:");
    const lease = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
    if (!lease) throw new Error("no lease");
    const policy = { trustedAuthors: new Set(["worker", "bot"]) };
    const older = cpBody({ phase: "clone_complete", seq: 1, epoch: 1, id: "cp-00000003" });
    const newest = cpBody({ phase: "subtask_1_complete", seq: 2, epoch: newestEpoch, id: "cp-00000005" });
    const rewind = formatControl({ agent: "implementation-worker", session: "s1", action: "rewind", target: 3, epoch: newestEpoch + 1, by: "alice", timestamp: t(12) });
    await store.applyDelivery(issueKey(repo, 1), null, [upsert(3, "worker", older), upsert(5, "worker", newest), upsert(12, "bot", rewind)]);
    await store.updateIssueMeta({ name: lease.name, token: lease.token }, issueKey(repo, 1), { carried: [{ from: 5, to: 9 }] });
    await store.applyDelivery(issueKey(repo, 2), null, [upsert(9, "bot", carriedBody(newest, { issue: 1, commentId: 5 }))]);
    const fold = (comments: { id: number; author: string; body: string; createdAt: string; updatedAt: string }[]) => {
      const p = createProjection(policy);
      for (const c of comments) p.apply({ type: "upsert", comment: c });
      return p.snapshot().entries.find((e) => e.session === "s1");
    };
    const snapOf = (issue: number) => storedSnapshot(store, issue, policy);
    const api = new FakeIssueHost({ login: "bot", firstId: 101 });
    api.addIssue({ number: 2 });
    const n = await carryNewest({ api, store, repo, issue: 1, logger: silent, selfLogin: "bot", policy }, { name: lease.name, token: lease.token }, await snapOf(1), 2, (await snapOf(2)).entries);
    return { n, posts: api.comments.get(2) ?? [], fold, newest };
  }

  it("carries the target's copy, then the rewind naming it; the head's fold resumes from the target", async () => {
    const { n, posts, fold, newest } = await lateRewind(1);
    expect(n).toBe(2);
    const kinds = posts.map((c) => parseComment(c.body));
    expect(kinds.map((p) => (p.kind === "checkpoint" ? p.checkpoint.id : p.kind === "control" ? p.control.action : p.kind))).toEqual(["cp-00000003", "rewind"]);
    const r = kinds[1];
    expect(r?.kind === "control" && r.control.target).toBe(posts[0]?.id);
    // The head alone (the rollover's copy, then these two): the rewind to the older checkpoint is in effect.
    const head = fold([
      upsert(9, "bot", carriedBody(newest, { issue: 1, commentId: 5 })).comment,
      ...posts.map((c) => ({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt })),
    ]);
    expect(head?.latest?.phase).toBe("clone_complete");
    expect(head?.control?.pending).toMatchObject({ action: "rewind", epoch: 2, to: { commentId: posts[0]?.id } });
  });

  it("carries neither when the target is from before a take-over the head holds (its copy would be fenced off)", async () => {
    const { n, posts } = await lateRewind(2);
    expect(n).toBe(0);
    expect(posts).toEqual([]);
  });
});

/**
 * The closed issue's own tracker (it holds that issue's lease, so the head's late carry leaves the
 * issue to it) carries what reaches it after the rollover: into the open head, which may be several
 * rollovers on, and judged by original comment ids (a save that raced the rollover's carry is older
 * than the copies made then, yet newer than the checkpoint they copy).
 */
describe("rollOverIfDue on a closed issue: late saves and controls into the open head", () => {
  const policy = { trustedAuthors: new Set(["worker", "bot"]) };
  const ctl = (action: "pause" | "unpause", s: number) => formatControl({ agent: "implementation-worker", session: "s1", action, by: "alice", timestamp: t(s) });
  const cp = (seq: number, id: string) => cpBody({ phase: "subtask_1_complete", seq, id });

  /**
   * #1 (closed) → #2 (closed) → #3 (open). #1 held checkpoint 5 and a pause 6, carried into #2 as 9 and 10,
   * then into #3 as 20 and 21. `late`: what reached #1 after the rollover.
   */
  async function chainOfThree(
    late: { id: number; author: string; body: string }[],
    onHeadToo: { id: number; author: string; body: string }[] = [],
    onForgeHeadOnly: { id: number; author: string; body: string }[] = [],
  ) {
    const store = createSqliteProjectionStore(":memory:");
    const k = (n: number) => issueKey(repo, n);
    const lease = await store.acquireLease(k(1), "test", 60_000);
    if (!lease) throw new Error("no lease");
    const fence = { name: lease.name, token: lease.token };
    const c5 = cp(1, "cp-00000005");
    const p6 = ctl("pause", 6);
    await store.applyDelivery(k(1), null, [upsert(5, "worker", c5), upsert(6, "bot", p6), ...late.map((x) => upsert(x.id, x.author, x.body))]);
    await store.updateIssueMeta(fence, k(1), {
      successor: 2,
      carried: [
        { from: 5, to: 9 },
        { from: 6, to: 10 },
      ],
    });
    const c9 = carriedBody(c5, { issue: 1, commentId: 5 });
    const p10 = carriedBody(p6, { issue: 1, commentId: 6 });
    await store.applyDelivery(k(2), null, [upsert(9, "bot", c9), upsert(10, "bot", p10)]);
    const other = await store.acquireLease(k(2), "test", 60_000);
    if (!other) throw new Error("no lease");
    await store.updateIssueMeta({ name: other.name, token: other.token }, k(2), {
      predecessor: 1,
      successor: 3,
      carried: [
        { from: 9, to: 20 },
        { from: 10, to: 21 },
      ],
    });
    await store.applyDelivery(k(3), null, [
      upsert(20, "bot", carriedBody(c9, { issue: 2, commentId: 9 })),
      upsert(21, "bot", carriedBody(p10, { issue: 2, commentId: 10 })),
      ...onHeadToo.map((x) => upsert(x.id, x.author, x.body)),
    ]);
    const api = new FakeIssueHost({ login: "bot", firstId: 101 });
    for (const n of [1, 2]) api.addIssue({ number: n, state: "closed" });
    api.addIssue({ number: 3 });
    for (const c of onForgeHeadOnly) api.addComment(3, c);
    const p = createProjection(policy);
    for (const c of await store.comments(k(1))) p.restore(c);
    const d = { api, store, repo, issue: 1, title: "session", label: "session", rolloverAt: 10, logger: silent, track: async () => {}, selfLogin: "bot", policy };
    const n = await rollOverIfDue(d, fence, p.snapshot());
    return { n, api, store };
  }
  const posted = (api: FakeIssueHost, issue: number) => (api.comments.get(issue) ?? []).map((c) => parseComment(c.body));

  it("carries a late save into the open head, not the closed next issue", async () => {
    const { n, api } = await chainOfThree([{ id: 30, author: "worker", body: cp(2, "cp-00000030") }]);
    expect(n).toBe(2);
    expect(posted(api, 2)).toEqual([]);
    const onHead = posted(api, 3);
    expect(onHead).toHaveLength(1);
    expect(onHead[0]?.kind === "checkpoint" && onHead[0].checkpoint.id).toBe("cp-00000030");
  });

  it("carries a save that raced the rollover's carry (its id below the copies') into the head", async () => {
    const { api } = await chainOfThree([{ id: 7, author: "worker", body: cp(2, "cp-00000007") }]);
    const onHead = posted(api, 3);
    expect(onHead).toHaveLength(1);
    expect(onHead[0]?.kind === "checkpoint" && onHead[0].checkpoint.id).toBe("cp-00000007");
  });

  it("carries a late unpause into the head, which still holds the pause carried at the rollover", async () => {
    const { api } = await chainOfThree([{ id: 31, author: "bot", body: ctl("unpause", 31) }]);
    const onHead = posted(api, 3);
    expect(onHead).toHaveLength(1);
    expect(onHead[0]?.kind === "control" && onHead[0].control.action).toBe("unpause");
  });

  it("leaves a late save alone when the head holds a newer one of the agent+session", async () => {
    const { n, api } = await chainOfThree([{ id: 15, author: "worker", body: cp(2, "cp-00000015") }], [{ id: 25, author: "worker", body: cp(3, "cp-00000025") }]);
    expect(n).toBe(2);
    expect(posted(api, 3)).toEqual([]);
    expect(posted(api, 2)).toEqual([]); // nor on top of the closed next issue
  });

  it("does not carry a late save the writer already posted again on the head (same Id), even before the store saw it", async () => {
    // `checkpost save` found #1 closed and posted the same save on the head (32); the store has not read it yet.
    const late = cp(2, "cp-00000030");
    const { api, store } = await chainOfThree([{ id: 30, author: "worker", body: late }], [], [{ id: 32, author: "worker", body: late }]);
    const onHead = api.comments.get(3) ?? [];
    expect(onHead.map((c) => c.id)).toEqual([32]); // no second copy: readers would flag it duplicate-id
    expect((await store.issueMeta(issueKey(repo, 1))).carried).toContainEqual({ from: 30, to: 32 });
  });

  it("leaves a late save alone when the head holds a newer save of the agent+session the store has not seen yet", async () => {
    // The fleet's seed 2031 schedule 128: n=15 reached #1 just after the rollover's carry; the writer's next
    // save (n=16) found #1 closed and was posted on the head (33) before the store read it. A copy of n=15
    // posted after it would be the head's newest comment, and every reader would resume from n=15.
    const { api } = await chainOfThree([{ id: 30, author: "worker", body: cp(2, "cp-00000030") }], [], [{ id: 33, author: "worker", body: cp(3, "cp-00000033") }]);
    const onHead = api.comments.get(3) ?? [];
    expect(onHead.map((c) => c.id)).toEqual([33]);
  });

  it("an untrusted comment with the same Id on the head does not stop the carry", async () => {
    const late = cp(2, "cp-00000030");
    const { api } = await chainOfThree([{ id: 30, author: "worker", body: late }], [], [{ id: 32, author: "mallory", body: late }]);
    const onHead = (api.comments.get(3) ?? []).filter((c) => c.author === "bot").map((c) => parseComment(c.body));
    expect(onHead).toHaveLength(1);
    expect(onHead[0]?.kind === "checkpoint" && onHead[0].checkpoint.id).toBe("cp-00000030");
  });
});
