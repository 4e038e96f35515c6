import { afterEach, describe, expect, it } from "vitest";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../src/session-client/index.ts";
import { continuedInComment, continuesLine } from "../../src/chain/index.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

// Issue 19, "a commenter takes over the chain": an account with no write access opens an issue titled like
// the session issue whose body links back, and posts junk until the rollover threshold is reached.

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const cp = (phase: string, n: number) => formatCheckpoint({ agent: "implementation-worker", session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { n }, seq: n, epoch: 1 });

describe("successor adoption at rollover (issue 19)", () => {
  it("adopts only an issue the bot opened: an attacker's issue with the marker is never labelled, carried into or followed", async () => {
    const world = (w = await botWorld({ rolloverAt: 8 }));
    const agent = world.api(world.agentToken);
    const mallory = world.api(world.malloryToken);
    await agent.createComment(world.repo, world.issue, cp("clone_complete", 1));
    await agent.createComment(world.repo, world.issue, cp("subtask_1_complete", 2));
    // The hijack: same title, body opening with the marker that links back.
    const evil = await mallory.createIssue(world.repo, { title: DEFAULT_SESSION_TITLE, body: `${continuesLine(world.issue, 8)}\nAll yours.` });
    // Her junk counts toward the threshold (docs/security.md says why), so she triggers the rollover herself.
    for (let i = 0; i < 6; i++) await mallory.createComment(world.repo, world.issue, `junk ${i}`);
    await world.settle();
    await world.bot.tracker(world.repo, world.issue)?.maintained();
    await world.settle();

    const meta = await world.bot.store.issueMeta(`agent/work#${world.issue}`);
    expect(meta.successor).toBeDefined();
    expect(meta.successor).not.toBe(evil.number);
    const successor = await agent.getIssue(world.repo, meta.successor as number);
    expect(successor.author).toBe("checkpost-bot");
    expect(successor.state).toBe("open");
    expect(successor.labels.map((l) => l.name)).toEqual([DEFAULT_SESSION_LABEL]);
    // Mallory's issue: no label, nothing carried, not watched.
    const evilNow = await agent.getIssue(world.repo, evil.number);
    expect(evilNow.labels).toEqual([]);
    expect((await agent.listComments(world.repo, evil.number)).filter((c) => c.body.includes("carried over by checkpost"))).toEqual([]);
    expect(world.bot.tracker(world.repo, evil.number)).toBeUndefined();
    expect(world.logs.some((l) => l.includes("rollover anomaly") && l.includes(`#${evil.number}`))).toBe(true);

    // She also leaves a forged "continued in" comment on the closed issue, pointing at her issue.
    await mallory.createComment(world.repo, world.issue, continuedInComment(evil.number, 8));
    // A reader whose cached issue is the closed one follows the chain to the bot's successor, not hers.
    const store = new SessionStore({ api: agent, repo: world.repo, issue: world.issue, trustedAuthors: ["checkpost-bot"] });
    const r = await store.resume("implementation-worker", "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
    expect(await store.issueNumber()).toBe(successor.number);
    expect(r).toMatchObject({ phase: "subtask_1_complete", state: { n: 2 } });
    // A fresh reader locates the same issue by title and label.
    const fresh = new SessionStore({ api: agent, repo: world.repo, trustedAuthors: ["checkpost-bot"] });
    expect(await fresh.issueNumber()).toBe(successor.number);
  });
});
