import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import { extractResumeIndexFromComment } from "../../src/dashboard/index.ts";
import type { ResumeIndexRef } from "../../src/dashboard/index.ts";

// Issue 32: the bot's resume index says up to when it had read every comment ("complete up to",
// `completeBefore`), so a remembered cold resume lists the tail from there, not from the watermark's
// own second (which holds comments the index covers: a burst of saves right before the bot's read).
// The forge's clock is the test's; its `Date` header follows it, as Forgejo's does.

const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe("the resume index's complete-up-to time", () => {
  it("comes from the bot's read; a remembered resume lists from it, and still sees every comment after it", async () => {
    // Ahead of the real clock, so that the bot's first read (before the clock is set) claims nothing in it.
    let t = Math.floor(Date.now() / 1000) * 1000 + 60_000;
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 }, { webhook: false });
    const world = w;
    world.forge.admin.setClock(() => t);
    const refs = new Map<number, ResumeIndexRef>();
    const store = () =>
      new SessionStore({
        api: world.api(world.agentToken),
        repo: world.repo,
        issue: world.issue,
        selfLogin: "agent",
        trustedAuthors: ["checkpost-bot"],
        indexRefs: { get: (i) => refs.get(i), set: (i, r) => void refs.set(i, r) },
      });
    // A burst of saves in one second, then the bot reads three seconds later.
    for (let i = 1; i <= 5; i++) await store().save({ agent: "implementation-worker", session: "s1", phase: "subtask_1_complete", data: { i } });
    t += 3000;
    const tracker = world.bot.tracker(world.repo, world.issue);
    await tracker?.poll();
    await world.bot.flushDashboards();

    const first = await store().resume("implementation-worker", "s1", MAP);
    expect(first).toMatchObject({ via: "index", state: { i: 5 } });
    const ref = refs.get(world.issue) as ResumeIndexRef;
    const holder = await world.api(world.agentToken).getComment(world.repo, ref.comment);
    const index = extractResumeIndexFromComment(holder.body);
    expect(index?.completeBefore).toBe(new Date(t).toISOString());
    expect(Date.parse(index?.watermarkUpdatedAt ?? "")).toBe(t - 3000);
    // The remembered `since` is the claim: the listed tail is the index comment alone, not the five saves.
    expect(ref.since).toBe(index?.completeBefore);
    expect((await world.api(world.agentToken).listComments(world.repo, world.issue, { sinceMs: Date.parse(ref.since) })).map((c) => c.id)).toEqual([holder.id]);
    world.forge.admin.resetStats();
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ via: "index", state: { i: 5 } });
    expect(world.forge.admin.stats().totalRequests).toBe(2); // the tail, and the pointed checkpoint by id

    // A save in the claim's own second, after the bot's read (Forgejo's `since` is whole seconds and inclusive): in the tail.
    await store().save({ agent: "implementation-worker", session: "s1", phase: "subtask_2_complete", data: { i: 6 } });
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ via: "index", phase: "subtask_2_complete", state: { i: 6 } });
    // And one later still, with a health signal of another agent between.
    t += 2000;
    await world.api(world.agentToken).createComment(world.repo, world.issue, formatHealth({ agent: "other", session: "s1", metrics: {}, timestamp: pythonUtcIsoformat(new Date(t)) }));
    await store().save({ agent: "implementation-worker", session: "s1", phase: "pr_created", data: { i: 7 } });
    expect(await store().resume("implementation-worker", "s1", MAP)).toMatchObject({ via: "index", phase: "pr_created", state: { i: 7 } });
  });

  it("is not claimed past a gap: a poll that starts after the claim does not extend it", async () => {
    let t = Math.floor(Date.now() / 1000) * 1000 + 60_000;
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 }, { webhook: false });
    const world = w;
    world.forge.admin.setClock(() => t);
    const save = (i: number) =>
      new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue: world.issue, selfLogin: "agent" }).save({
        agent: "implementation-worker",
        session: "s1",
        phase: "subtask_1_complete",
        data: { i },
      });
    const tracker = world.bot.tracker(world.repo, world.issue);
    await save(1);
    t += 2000;
    await tracker?.poll(); // the full read: the claim is t
    const claimed = t;
    expect(tracker?.completeBeforeMs).toBe(claimed);
    // The newest comment is then seen well after the claim, and not by a read (a webhook, say): the next poll
    // starts from it, more than CLAIM_CATCH_UP_MS after the claim, so it leaves the comments between unread.
    t += 30_000;
    await save(2);
    await tracker?.apply(
      (await world.api(world.agentToken).listComments(world.repo, world.issue, { sinceMs: t })).map((c) => ({
        type: "upsert" as const,
        comment: { id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt },
      })),
    );
    t += 3000;
    await save(3); // read by the poll below, so the index changes after it
    t += 2000;
    await tracker?.pollBody(); // the bot's client learns the forge's time (its claims never run ahead of it)
    await tracker?.poll();
    await world.bot.flushDashboards();
    // The claim stayed at the full read's time, earlier than the watermark: not written.
    expect(tracker?.completeBeforeMs).toBe(claimed);
    const holder = (await world.api(world.agentToken).listComments(world.repo, world.issue)).find((c) => c.author === "checkpost-bot" && extractResumeIndexFromComment(c.body));
    expect(extractResumeIndexFromComment(holder?.body)?.completeBefore).toBeUndefined();
    // The next full read (the reconcile) claims again.
    await tracker?.reconcile();
    expect(tracker?.completeBeforeMs).toBe(t);
  });

  it("a first start whose read falls in the second of the newest save waits for the next second, so its index covers it", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 }, { webhook: false });
    const world = w;
    // The forge's clock runs at real speed from a whole second: the saves and the new bot's first read
    // fall in that second unless the machine is slow (then the claim covers it without waiting).
    const base = Math.floor(Date.now() / 1000) * 1000 + 120_000;
    const realStart = Date.now();
    world.forge.admin.setClock(() => base + (Date.now() - realStart));
    for (let i = 1; i <= 3; i++)
      await new SessionStore({ api: world.api(world.agentToken), repo: world.repo, issue: world.issue, selfLogin: "agent" }).save({
        agent: "implementation-worker",
        session: "s1",
        phase: "subtask_1_complete",
        data: { i },
      });
    const newest = Math.max(...(await world.api(world.agentToken).listComments(world.repo, world.issue)).map((c) => Date.parse(c.updatedAt)));
    const bot = await world.startBot({ ...world.config, storeFile: ":memory:", port: 0 }, { logger: world.logger });
    try {
      expect(bot.tracker(world.repo, world.issue)?.completeBeforeMs).toBeGreaterThan(Math.floor(newest / 1000) * 1000);
    } finally {
      await bot.stop();
    }
  });
});
