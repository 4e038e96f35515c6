import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { RESUME_INDEX_OPEN, extractResumeIndex, extractResumeIndexFromComment, extractResumeIndexRef, formatResumeIndexRef } from "../../src/dashboard/index.ts";
import { projectComments } from "../../src/projection/index.ts";
import { SessionStore, toCommentRecord } from "../../src/session-client/index.ts";

// Issue 22: a large resume index lives in a comment the bot edits, the body holds only a pointer.
// `resumeIndexInlineMaxBytes: 0` puts every index there, so small worlds exercise the large-index path.

let w: BotWorld;
afterEach(async () => w?.close());

const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
const cp = (phase: string, data: Record<string, unknown> = {}, agent = "implementation-worker", session = "s1") =>
  formatCheckpoint({ agent, session, phase, timestamp: pythonUtcIsoformat(new Date()), data: data as never });
const post = (body: string, token = w.agentToken) => w.api(token).createComment(w.repo, w.issue, body);
const body = async () => (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
const indexComments = async () => (await w.api(w.agentToken).listComments(w.repo, w.issue)).filter((c) => c.body.includes(RESUME_INDEX_OPEN));
// The bot writes the index comment: readers trust its login (they must anyway, it writes the carried checkpoints).
const coldStore = () => new SessionStore({ api: w.api(w.agentToken), repo: w.repo, issue: w.issue, selfLogin: "agent", trustedAuthors: ["checkpost-bot"] });

describe("the resume index in a comment the body points to", () => {
  it("keeps the body free of the index, edits one comment, and cold resume reads it with the tail in 2 requests", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 });
    await post(cp("clone_complete", { n: 1 }));
    await w.settle();
    const first = await body();
    expect(extractResumeIndex(first)).toBeNull(); // not inline
    const ref = extractResumeIndexRef(first);
    expect(ref).not.toBeNull();
    const held = await indexComments();
    expect(held.map((c) => [c.id, c.author])).toEqual([[ref?.comment, "checkpost-bot"]]);
    expect(extractResumeIndexFromComment(held[0]?.body)?.entries.map((e) => e.agent)).toEqual(["implementation-worker"]);

    // A newer checkpoint: the same comment is edited, never a second one; the bot's own edit starts no write loop.
    for (let i = 0; i < 3; i++) await post(`chatter ${i}`);
    const newest = await post(cp("all_subtasks_complete", { completed_subtasks: [1, 2] }));
    await w.settle();
    await w.settle();
    const writes = w.bot.trackers()[0]?.dashboard.writes ?? 0;
    await w.settle();
    expect(w.bot.trackers()[0]?.dashboard.writes).toBe(writes);
    expect((await indexComments()).map((c) => c.id)).toEqual([ref?.comment]);

    w.forge.admin.resetStats();
    const viaIndex = await coldStore().resume("implementation-worker", "s1", MAP);
    expect(w.forge.admin.stats().totalRequests).toBe(2); // GET the issue; list since the pointer's time (index comment + tail)
    expect(viaIndex).toMatchObject({ phase: "all_subtasks_complete", via: "index" });
    expect(viaIndex.checkpoint?.commentId).toBe(newest.id);
    const full = projectComments((await w.api(w.agentToken).listComments(w.repo, w.issue)).map(toCommentRecord), { trustedAuthors: new Set(["agent", "checkpost-bot"]) });
    expect(full.entries.find((e) => e.session === "s1")?.latest?.commentId).toBe(newest.id);
  });

  it("an older checkpoint than the tail is fetched by id and checked as before", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 });
    const old = await post(cp("clone_complete", { n: 1 }, "release-manager", "s9"));
    for (let i = 0; i < 40; i++) await post(`chatter ${i}`); // more than ONE_READ_MAX_ID_GAP ids below the watermark
    await post(cp("clone_complete", {}, "implementation-worker", "s1"));
    await w.settle();
    const r = await coldStore().resume("release-manager", "s9", MAP);
    expect(r).toMatchObject({ phase: "clone_complete", via: "index" });
    expect(r.checkpoint?.commentId).toBe(old.id);
  });

  it("a restarted bot edits the same comment; a pointer moved to a person's comment is never edited and not believed", async () => {
    w = await botWorld({ resumeIndexInlineMaxBytes: 0 });
    await post(cp("clone_complete", { n: 1 }));
    await w.settle();
    const ref = extractResumeIndexRef(await body());
    expect(ref).not.toBeNull();

    // A second bot process on the same forge (as after a restart) adopts the comment the body points to.
    await w.bot.stop();
    const again = await w.startBot(w.config, { logger: w.logger });
    try {
      const commit = await post(cp("commit_complete", { n: 2 }));
      await again.pollAll(); // the webhook still points at the stopped bot
      await again.flushDashboards();
      expect((await indexComments()).map((c) => c.id)).toEqual([ref?.comment]);
      expect(extractResumeIndexFromComment((await indexComments())[0]?.body)?.entries[0]?.commentId).toBe(commit.id);

      // Mallory, a repo writer, points the body at her own comment holding a forged index (an untrusted checkpoint).
      w.forge.admin.addCollaborator("agent", "work", "mallory", "write");
      const forgedCp = await post(cp("pr_created", { pr: 666 }), w.malloryToken);
      const fake = extractResumeIndexFromComment((await indexComments())[0]?.body);
      const forgedIndex = { ...fake, entries: fake?.entries.map((e) => ({ ...e, commentId: forgedCp.id, maxEpoch: 0 })) };
      const hers = await post(`${RESUME_INDEX_OPEN}${JSON.stringify(forgedIndex)} -->`, w.malloryToken);
      const current = await body();
      const moved = current.replace(/<!-- checkpost:resume-index-ref [^\n]*? -->/, formatResumeIndexRef({ comment: hers.id, since: ref?.since ?? "" }));
      await w.api(w.malloryToken).editIssue(w.repo, w.issue, { body: moved });
      expect(await coldStore().resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "commit_complete" });

      await post(cp("subtask_1_complete", { n: 3 }));
      await again.pollAll();
      await again.flushDashboards();
      expect((await w.api(w.agentToken).getComment(w.repo, hers.id)).body).toBe(`${RESUME_INDEX_OPEN}${JSON.stringify(forgedIndex)} -->`);
      const mine = extractResumeIndexRef(await body());
      expect(mine?.comment).not.toBe(hers.id);
      expect(await coldStore().resume("implementation-worker", "s1", MAP)).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    } finally {
      await again.stop();
    }
  });
});
