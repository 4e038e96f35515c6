import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, formatHealth, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { runCli } from "../../src/app/cli.ts";
import { escapeMarkdown, extractResumeIndexFromComment, extractResumeIndexRef } from "../../src/dashboard/index.ts";

// Issue 18, items 1 and 2: the session chain is one session. Controls survive rollovers, a CLI agent whose
// cached issue predates three rollovers resumes from the head, and a save that reached a closed issue
// (three rollovers back) is carried into the open head.

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const A = "implementation-worker";
const R = 8; // rollover threshold
const cp = (session: string, phase: string, o: { epoch?: number; seq?: number } = {}) =>
  formatCheckpoint({ agent: A, session, phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...o });

async function chainWorld(): Promise<{ world: BotWorld; alice: string }> {
  const world = (w = await botWorld({ rolloverAt: R }));
  world.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
  world.forge.admin.createUser("alice");
  world.forge.admin.addCollaborator("agent", "work", "alice", "write");
  return { world, alice: world.forge.admin.createToken("alice") };
}

/** The open head as the bot knows it (store meta successors from the first issue). */
async function head(world: BotWorld): Promise<number> {
  let n = world.issue;
  for (;;) {
    const s = (await world.bot.store.issueMeta(`agent/work#${n}`)).successor;
    if (s === undefined) return n;
    n = s;
  }
}

/**
 * Fill the head with health signals until it rolls over; returns the new head. `distinct`: from as many
 * agents as the threshold, so each successor is carried that many signals (it must not roll over again at once).
 */
async function rollOver(world: BotWorld, distinct = false): Promise<number> {
  const from = await head(world);
  const api = world.api(world.agentToken);
  for (let i = 0; i < R; i++)
    await api.createComment(world.repo, from, formatHealth({ agent: distinct ? `filler-${i}` : "filler", session: "f", timestamp: pythonUtcIsoformat(new Date()), metrics: { i } }));
  await world.settle();
  await world.bot.tracker(world.repo, from)?.maintained();
  await world.settle();
  const to = await head(world);
  expect(to).not.toBe(from);
  expect((await api.getIssue(world.repo, from)).state).toBe("closed");
  return to;
}

/** How many times the first issue has rolled over (successors from it to the head). */
async function chainLength(world: BotWorld): Promise<number> {
  let hops = 0;
  for (let n = world.issue; ; hops++) {
    const s = (await world.bot.store.issueMeta(`agent/work#${n}`)).successor;
    if (s === undefined) return hops;
    n = s;
  }
}

async function apiResume(world: BotWorld, issue: number, session: string) {
  const r = await world.botFetch(`/api/resume?agent=${A}&session=${session}&repo=agent/work&issue=${issue}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
}

function cli(world: BotWorld, cacheDir: string) {
  const env = {
    FORGEJO_URL: world.forge.url,
    FORGEJO_TOKEN: world.agentToken,
    FORGEJO_REPOSITORY: "agent/work",
    CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
    CHECKPOST_CACHE_DIR: cacheDir,
  };
  // `status` exits 3 when something needs attention (a paused agent does): README, "Exit codes".
  return async (args: string[], expectedCode = 0) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", cwd: process.cwd(), env });
    expect(code, err.join("")).toBe(expectedCode);
    return JSON.parse(out.join("")) as Record<string, unknown>;
  };
}

/**
 * The forge's clock during the last rollover. Forgejo keeps comment times in whole seconds and `since` is
 * a second, so whether the carried records share the watermark's second decides what the head's tail
 * listing holds. Under load the carry once spanned a second boundary (issue 33, item 9): the CLI then
 * fetched the carried checkpoint and its control by id, as it should. Each variant pins that; after the
 * rollover the clock runs at the real pace again from where it stood.
 */
const carries = [
  { carry: "within one second", stepMs: 0, byId: 0 },
  { carry: "across seconds (each forge write a second later)", stepMs: 1000, byId: 2 },
] as const;

function pinClock(world: BotWorld, stepMs: number): () => void {
  let t = Date.now();
  world.forge.admin.setClock(() => (t += stepMs));
  return () => {
    const from = t;
    const realFrom = Date.now();
    world.forge.admin.setClock(() => from + (Date.now() - realFrom));
  };
}

describe("the session chain across three rollovers", () => {
  it.each(carries)(
    "a pause and a rewind (with its fence) survive; every reader and a CLI cache from before the rollovers agree (a carry $carry)",
    async ({ stepMs, byId }) => {
      const { world, alice } = await chainWorld();
      const agent = world.api(world.agentToken);
      await agent.createComment(world.repo, world.issue, cp("s1", "clone_complete", { epoch: 1, seq: 1 }));
      await agent.createComment(world.repo, world.issue, cp("s1", "commit_complete", { epoch: 1, seq: 2 }));
      await agent.createComment(world.repo, world.issue, cp("s2", "subtask_1_complete", { epoch: 1, seq: 1 }));
      await world.settle();
      // A CLI agent on this machine remembers the first issue.
      const cacheDir = mkdtempSync(join(tmpdir(), "cp-chain-"));
      const run = cli(world, cacheDir);
      expect(await run(["resume", "--agent", A, "--session", "s2"])).toMatchObject({ phase: "subtask_1_complete", directive: null });

      const first = (await agent.listComments(world.repo, world.issue)).find((c) => c.body.includes("clone_complete"));
      await agent.createComment(world.repo, world.issue, `/checkpost rewind ${A} s1 ${first?.id}`);
      await world.settle();
      await world.api(alice).createComment(world.repo, world.issue, `/checkpost pause ${A} s2`);
      await world.settle();
      expect(await apiResume(world, world.issue, "s1")).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "rewind", epoch: 3 } });

      let h = world.issue;
      for (let i = 0; i < 3; i++) {
        const release = i === 2 ? pinClock(world, stepMs) : null;
        h = await rollOver(world);
        release?.();
        // After every rollover, on the head: the rewind (and its fence) and the pause are still in effect.
        expect(await apiResume(world, h, "s1"), `after rollover ${i + 1}`).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "rewind", epoch: 3 } });
        expect(await apiResume(world, h, "s2"), `after rollover ${i + 1}`).toMatchObject({ phase: "subtask_1_complete", directive: { kind: "pause", by: "alice" } });
      }
      // Carried as the bot's own [CONTROL] records, with provenance.
      const carriedControls = (await agent.listComments(world.repo, h)).filter((c) => parseComment(c.body).kind === "control");
      expect(carriedControls.map((c) => c.author)).toEqual(["checkpost-bot", "checkpost-bot"]);
      expect(carriedControls.every((c) => /↪ carried over by checkpost from #\d+ \(comment \d+\)$/.test(c.body))).toBe(true);

      // The CLI agent's cache still names the first issue, now three rollovers back: it follows the chain.
      world.forge.admin.resetStats();
      const s1 = await run(["resume", "--agent", A, "--session", "s1"]);
      // The CLI's requests alone (its token is the agent's). The bot, settled with its timers off, makes none.
      const { requestsBy } = world.forge.admin.stats();
      expect(requestsBy["checkpost-bot"]).toBeUndefined();
      const requests = requestsBy["agent"] ?? {};
      expect(s1).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "rewind", epoch: 3 } });
      // Rollovers so far: at least the three above (the bot's index comment counts toward the threshold, so a
      // successor may fill and roll over once more).
      const hops = await chainLength(world);
      expect(hops).toBeGreaterThanOrEqual(3);
      // The CLI remembers the first issue's index comment: it lists that issue's comments since the index, finds
      // it rolled over, and walks the chain: each issue and its tail (2 per issue); on the head, the listing
      // since the body's pointer holds the index comment. What s1's entry names (its checkpoint, its control)
      // and that listing lacks, updated before the pointer's second, is fetched by id (one round trip).
      expect(requests["GET /repos/{owner}/{repo}/issues/{index}"]).toBe(hops + 1);
      expect(requests["GET /repos/{owner}/{repo}/issues/{index}/comments"]).toBe(1 + hops + 1);
      const ref = extractResumeIndexRef((await agent.getIssue(world.repo, h)).body);
      const onHead = await agent.listComments(world.repo, h);
      const index = extractResumeIndexFromComment(onHead.find((c) => c.id === ref?.comment)?.body);
      /** What the index's entry for `session` names (its checkpoint, its control) that a listing since `since` lacks. */
      const namedBefore = (session: string, since: string | undefined) => {
        const entry = index?.entries.find((e) => e.agent === A && e.session === session);
        const named = [entry?.commentId, ...(entry?.controls ?? [])];
        expect(named, session).toHaveLength(2);
        return onHead.filter((c) => named.includes(c.id) && Date.parse(c.updatedAt) < Date.parse(since ?? "")).length;
      };
      expect(namedBefore("s1", ref?.since)).toBe(byId);
      expect(requests["GET /repos/{owner}/{repo}/issues/comments/{id}"] ?? 0).toBe(byId);
      expect(Object.keys(requests).filter((r) => !r.startsWith("GET /repos/{owner}/{repo}/issues/"))).toEqual([]);
      // The cache now names the head's index comment and watermark: the next resume is one `since` read,
      // then (one round trip) what s2's entry names from before the watermark's second, by id.
      world.forge.admin.resetStats();
      expect(await run(["resume", "--agent", A, "--session", "s2"])).toMatchObject({ phase: "subtask_1_complete", directive: { kind: "pause" } });
      const warm = world.forge.admin.stats().requestsBy;
      const warmById = namedBefore("s2", index?.watermarkUpdatedAt);
      expect(warmById).toBe(byId);
      expect(warm["checkpost-bot"]).toBeUndefined();
      expect(warm["agent"]).toEqual({
        "GET /repos/{owner}/{repo}/issues/{index}/comments": 1,
        ...(warmById > 0 ? { "GET /repos/{owner}/{repo}/issues/comments/{id}": warmById } : {}),
      });
      // /api/resume, `checkpost resume`, `status --json` and the dashboard agree for every agent+session.
      const status = (await run(["status", "--json"], 3)) as { issue: number; freshness: { may_be_stale: boolean }; entries: { session: string; resume: Record<string, unknown> }[] };
      expect(status).toMatchObject({ issue: h, freshness: { may_be_stale: false } });
      await world.bot.flushDashboards();
      const body = (await agent.getIssue(world.repo, h)).body;
      for (const session of ["s1", "s2"]) {
        const bot = await apiResume(world, h, session);
        const cliAnswer = await run(["resume", "--agent", A, "--session", session]);
        const fromStatus = status.entries.find((e) => e.session === session)?.resume ?? {};
        for (const k of ["resume_point", "phase", "checkpoint", "directive", "not_used", "mapped"]) {
          expect(cliAnswer[k], `${session} ${k}: cli`).toEqual(bot[k]);
          expect(fromStatus[k], `${session} ${k}: status`).toEqual(bot[k]);
        }
        // The dashboard row shows the same phase and resume point.
        expect(body).toContain(`${escapeMarkdown(String(bot.phase))} → ${escapeMarkdown(String(bot.resume_point))}`);
      }

      // The fence held: the rewound worker's old epoch is still a zombie on the head.
      await agent.createComment(world.repo, h, cp("s1", "subtask_9_complete", { epoch: 1, seq: 3 }));
      await world.settle();
      expect(await apiResume(world, h, "s1")).toMatchObject({ phase: "clone_complete", directive: { kind: "rewind" } });
    },
    180_000,
  );

  /** Two checkpoints of s1 on the first issue, then a rollover: only the newer is carried, the older stays behind. */
  async function olderLeftOnClosedIssue() {
    const { world, alice } = await chainWorld();
    const agent = world.api(world.agentToken);
    const older = await agent.createComment(world.repo, world.issue, cp("s1", "clone_complete", { epoch: 1, seq: 1 }));
    await agent.createComment(world.repo, world.issue, cp("s1", "commit_complete", { epoch: 1, seq: 2 }));
    await world.settle();
    const h = await rollOver(world);
    return { world, alice, agent, older, h };
  }

  it("a rewind on the head to a checkpoint left on a closed issue (not carried) takes effect", async () => {
    const { world, alice, agent, older, h } = await olderLeftOnClosedIssue();
    // The rollover carried only the newest checkpoint: the older one is on the closed issue alone.
    expect((await agent.listComments(world.repo, h)).filter((c) => c.body.includes("clone_complete"))).toEqual([]);
    await world.api(alice).createComment(world.repo, h, `/checkpost rewind ${A} s1 ${older.id}`);
    await world.settle();
    expect(await apiResume(world, h, "s1")).toMatchObject({ phase: "clone_complete", directive: { kind: "rewind", epoch: 3 } });
    const run = cli(world, mkdtempSync(join(tmpdir(), "cp-chain-")));
    expect(await run(["resume", "--agent", A, "--session", "s1"])).toMatchObject({ phase: "clone_complete", directive: { kind: "rewind" } });
    // Recorded as the bot's own [CONTROL] on the head, after a copy of its target; no refusal reply.
    const onHead = await agent.listComments(world.repo, h);
    expect(onHead.filter((c) => c.body.startsWith("checkpost:"))).toEqual([]);
    expect(onHead.filter((c) => parseComment(c.body).kind === "control" && c.body.includes("rewind"))).toHaveLength(1);
  }, 180_000);

  it("a rewind to a checkpoint on a closed issue from before a take-over is refused with a reply", async () => {
    const { world, alice, agent, older, h } = await olderLeftOnClosedIssue();
    // A take-over on the head: a copy of the epoch-1 target would be fenced off there.
    await agent.createComment(world.repo, h, cp("s1", "pr_created", { epoch: 2, seq: 3 }));
    await world.settle();
    await world.api(alice).createComment(world.repo, h, `/checkpost rewind ${A} s1 ${older.id}`);
    await world.settle();
    expect(await apiResume(world, h, "s1")).toMatchObject({ phase: "pr_created", directive: null });
    const replies = (await agent.listComments(world.repo, h)).filter((c) => c.body.startsWith("checkpost:"));
    expect(replies.map((c) => c.body)).toEqual([expect.stringContaining(`is on closed #${world.issue} at epoch 1, from before a take-over (epoch 2 now)`)]);
  }, 180_000);

  it("a save that reached an issue three rollovers back is carried into the open head; a CLI save lands on the head", async () => {
    const { world } = await chainWorld();
    const agent = world.api(world.agentToken);
    await agent.createComment(world.repo, world.issue, cp("s1", "clone_complete", { epoch: 1, seq: 1 }));
    await world.settle();
    const run = cli(world, mkdtempSync(join(tmpdir(), "cp-chain-")));
    await run(["resume", "--agent", A, "--session", "s1"]); // caches the first issue, takes over at epoch 2
    let h = world.issue;
    for (let i = 0; i < 3; i++) h = await rollOver(world, true);
    expect(h).toBe(world.issue + 3);
    // The CLI's cache predates the rollovers: its save still lands on the head (and says so).
    const saved = await run(["save", "--agent", A, "--session", "s1", "--phase", "commit_complete", "--data", "{}"]);
    expect(saved).toMatchObject({ issue: h, directive: null });
    expect(await apiResume(world, h, "s1")).toMatchObject({ phase: "commit_complete" });
    // An agent that posts to the first issue directly (a library handle from before): carried into the head.
    await agent.createComment(world.repo, world.issue, cp("s1", "subtask_1_complete", { epoch: 2, seq: 3 }));
    const t = world.bot.tracker(world.repo, h);
    await t?.reconcile();
    await t?.maintained();
    await world.settle();
    expect(await apiResume(world, h, "s1")).toMatchObject({ phase: "subtask_1_complete", epoch: 3 });
    expect((await agent.listComments(world.repo, h)).filter((c) => c.body.includes("subtask_1_complete"))).toHaveLength(1);
  }, 180_000);
});
