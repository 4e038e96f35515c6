// Issue 31, item 2: the bot's suites run with the bot behind the GitHub-behaviour adapter over the
// embedded forge (`npm run test:github`, CHECKPOST_TEST_HOST=github). These cases prove, on every run of
// `npm test`, that such a world really puts the bot on GitHub's behaviour: its reads are GitHub's routes,
// paged with Link; its deliveries carry GitHub's headers only; its capabilities are GitHub's.
import { afterEach, describe, expect, it } from "vitest";
import { formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { botWorld, type BotWorld } from "../helpers/bot-world.ts";
import { GITHUB_CAPABILITIES } from "../helpers/github-host/github-host.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const cp = (i: number) => formatCheckpoint({ agent: "implementation-worker", session: "s1", phase: "clone_complete", timestamp: pythonUtcIsoformat(new Date()), data: { i } });

describe("the bot behind the GitHub surface over the forge", () => {
  it("reads the issue through GitHub's routes, following Link over pages of at most 100 comments", async () => {
    w = await botWorld({}, { host: "github", webhook: false });
    const world = w;
    const github = world.github;
    if (!github) throw new Error("no GitHub surface");
    expect(world.capabilities).toBe(GITHUB_CAPABILITIES);
    world.forge.admin.bulkComments(
      "agent",
      "work",
      world.issue,
      Array.from({ length: 150 }, (_, i) => ({ login: "agent", body: cp(i + 1) })),
    );
    github.requests.length = 0;
    const tracker = world.bot.tracker(world.repo, world.issue);
    await tracker?.poll();
    expect(tracker?.projection.latest("implementation-worker", "s1")?.data).toEqual({ i: 150 });
    const lists = github.requests.filter((r) => r.startsWith(`GET /repos/agent/work/issues/${world.issue}/comments`));
    expect(lists.some((r) => r.includes("per_page=100") && r.includes("page=2"))).toBe(true);
    // The forge's own routes never reach the GitHub surface: no /api/v1, no `before`, no attachment list.
    expect(github.requests.filter((r) => r.includes("/api/v1") || r.includes("before=") || r.includes("/assets"))).toEqual([]);
  });

  it("gets the forge's deliveries with GitHub's headers only, and writes the dashboard", async () => {
    w = await botWorld({}, { host: "github" });
    const world = w;
    await world.api(world.agentToken).createComment(world.repo, world.issue, cp(1));
    await world.settle();
    const relayed = world.github?.relayed ?? [];
    expect(relayed.map((d) => d.event)).toContain("issue_comment");
    for (const d of relayed) {
      expect(Object.keys(d.headers).filter((h) => /forgejo|gitea/i.test(h))).toEqual([]);
      expect(d.headers["x-hub-signature-256"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(d.headers["x-github-delivery"]).toBeTruthy();
    }
    expect((await world.api(world.agentToken).getIssue(world.repo, world.issue)).body).toContain("clone_complete");
  });
});
