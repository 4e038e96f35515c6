import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatCheckpoint, pythonUtcIsoformat, signCheckpoint } from "../../src/protocol/index.ts";
import type { JsonObject } from "../../src/protocol/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { carriedBody } from "../../src/chain/carried-body.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

// Issue 11: a save posted on the closed, rolled-over issue while the bot was down (or after it
// restarted) is carried to the successor by the successor's writer on start and on reconcile,
// once, across restarts.

const KEY = "a-signing-key-of-some-length";
const TITLE = "[Automated] CleverAgents Build Session";
let w: BotWorld | undefined;
const bots: Bot[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const b of bots.splice(0)) await b.stop();
  await w?.close();
  w = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const signed = (phase: string, session: string, data: JsonObject, seq: number) => {
  const cp = { agent: "implementation-worker", version: "1.0", session, phase, timestamp: pythonUtcIsoformat(new Date()), data, seq, epoch: 1 };
  return formatCheckpoint({ ...cp, signature: signCheckpoint(cp, KEY) });
};

/** A bot on a store file whose issue rolled over (successor open, old issue closed), then stopped. */
async function rolledAndStopped() {
  const d = mkdtempSync(join(tmpdir(), "checkpost-rollover-restart-"));
  dirs.push(d);
  const world = (w = await botWorld({ rolloverAt: 10, signingKey: KEY, storeFile: join(d, "projection.sqlite") }));
  const api = world.api(world.agentToken);
  for (let i = 1; i <= 5; i++) for (const s of ["s1", "s2"]) await api.createComment(world.repo, world.issue, signed(`subtask_${i}_complete`, s, { i }, i));
  await world.settle();
  await world.bot.tracker(world.repo, world.issue)?.maintained();
  await world.settle();
  const successor = (await world.bot.store.issueMeta(`agent/work#${world.issue}`)).successor as number;
  expect((await api.getIssue(world.repo, world.issue)).state).toBe("closed");
  await world.bot.stop();
  return { world, api, successor };
}

/** Start a bot on the same store and wait for its upkeep (which checks the predecessor). */
async function restart(world: BotWorld, successor: number): Promise<Bot> {
  const bot = await world.startBot(world.config, { logger: world.logger });
  bots.push(bot);
  expect(bot.tracker(world.repo, world.issue)).toBeUndefined(); // the closed issue is not watched
  await bot.tracker(world.repo, successor)?.maintained();
  return bot;
}

const copiesOf = async (world: BotWorld, successor: number, original: string) => (await world.api(world.agentToken).listComments(world.repo, successor)).filter((c) => c.body.startsWith(original));

describe("a save on the closed issue after a bot restart", () => {
  it("is carried on start, byte-identical plus the provenance line, once across restarts and reconciles; an untrusted one is not", async () => {
    const { world, api, successor } = await rolledAndStopped();
    const late = signed("subtask_6_complete", "s1", { i: 6 }, 6);
    const posted = await api.createComment(world.repo, world.issue, late); // an agent that cached the old issue's number
    const forged = signed("evil", "s2", { evil: true }, 99);
    await world.api(world.malloryToken).createComment(world.repo, world.issue, forged);

    const bot = await restart(world, successor);
    const copies = await copiesOf(world, successor, late);
    expect(copies.map((c) => c.body)).toEqual([carriedBody(late, { issue: world.issue, commentId: posted.id })]);
    expect(copies[0]?.author).toBe("checkpost-bot");
    expect(await copiesOf(world, successor, forged)).toEqual([]);
    const carried = (await bot.store.issueMeta(`agent/work#${world.issue}`)).carried ?? [];
    expect(carried.filter((c) => c.from === posted.id)).toEqual([{ from: posted.id, to: copies[0]?.id }]);

    // Reconcile and another restart carry nothing twice.
    await bot.reconcileAll();
    await bot.tracker(world.repo, successor)?.maintained();
    await bot.stop();
    await restart(world, successor);
    expect(await copiesOf(world, successor, late)).toHaveLength(1);

    // A reader of the successor (title + label) resumes from it.
    const store = new SessionStore({ api, repo: world.repo, title: TITLE, label: "Type/Automation", trustedAuthors: ["agent", "checkpost-bot"], signingKey: KEY });
    expect(await store.issueNumber()).toBe(successor);
    expect(await store.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).toMatchObject({ phase: "subtask_6_complete", state: { i: 6 } });
  });

  it("two bot processes on one store after the restart carry it once", async () => {
    const { world, api, successor } = await rolledAndStopped();
    const late = signed("subtask_6_complete", "s1", { i: 6 }, 6);
    await api.createComment(world.repo, world.issue, late);
    const [a, b] = await Promise.all([world.startBot(world.config, { logger: world.logger }), world.startBot(world.config, { logger: world.logger })]);
    bots.push(a, b);
    const both = [a, b];
    for (const x of both) await x.tracker(world.repo, successor)?.maintained();
    for (const x of both) await x.reconcileAll();
    for (const x of both) await x.tracker(world.repo, successor)?.maintained();
    expect(both.filter((x) => x.tracker(world.repo, successor)?.lease.current() !== null)).toHaveLength(1);
    expect(await copiesOf(world, successor, late)).toHaveLength(1);
  });

  it("a late save posted while the bot runs is carried at the next reconcile", async () => {
    const { world, api, successor } = await rolledAndStopped();
    const bot = await restart(world, successor);
    const late = signed("subtask_6_complete", "s2", { i: 6 }, 6);
    await api.createComment(world.repo, world.issue, late);
    expect(await copiesOf(world, successor, late)).toHaveLength(0);
    await bot.reconcileAll();
    await bot.tracker(world.repo, successor)?.maintained();
    expect(await copiesOf(world, successor, late)).toHaveLength(1);
  });

  it("a copy posted before a crash (no record yet) is not posted again", async () => {
    const { world, api, successor } = await rolledAndStopped();
    const late = signed("subtask_6_complete", "s1", { i: 6 }, 6);
    const posted = await api.createComment(world.repo, world.issue, late);
    // What a writer that died between the POST and the store record left behind.
    const copy = await world.api(world.botToken).createComment(world.repo, successor, carriedBody(late, { issue: world.issue, commentId: posted.id }));
    await restart(world, successor);
    expect((await copiesOf(world, successor, late)).map((c) => c.id)).toEqual([copy.id]);
  });

  it("a late save older than what the successor already holds for its agent+session is left alone", async () => {
    const { world, api, successor } = await rolledAndStopped();
    const late = signed("subtask_6_complete", "s1", { i: 6 }, 6);
    await api.createComment(world.repo, world.issue, late);
    await api.createComment(world.repo, successor, signed("subtask_7_complete", "s1", { i: 7 }, 7)); // newer, on the successor
    await restart(world, successor);
    expect(await copiesOf(world, successor, late)).toHaveLength(0);
    const store = new SessionStore({ api, repo: world.repo, issue: successor, trustedAuthors: ["agent", "checkpost-bot"], signingKey: KEY });
    expect(await store.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).toMatchObject({ phase: "subtask_7_complete" });
  });
});
