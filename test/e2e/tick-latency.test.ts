// Issue 33, item 7: at the default settings a person's tick is recorded within 5 s (the [CONTROL] comment
// and the directive at /api/resume), even when no webhook reaches the bot: the bot reads the issue body
// alone every CHECKPOST_BODY_POLL_INTERVAL_MS (2 s), besides its comment poll (30 s).
import { afterEach, describe, expect, it } from "vitest";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { parseControlCheckboxes } from "../../src/dashboard/index.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { botWorld, type BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => w?.close());

const A = "implementation-worker";
/** The bound the issue sets; the default body poll (2 s) leaves room for a loaded machine. */
const LIMIT_MS = 5_000;

describe("a person's tick at the default settings, without webhooks", () => {
  it("is recorded as [CONTROL] and answered by /api/resume within 5 s", async () => {
    const d = defaultBotConfig({ url: "http://unused", token: "t" }, [{ owner: "o", repo: "r" }]);
    expect(d.bodyPollIntervalMs).toBe(2_000);
    expect(d.pollIntervalMs).toBe(30_000);
    const timers = {
      pollIntervalMs: d.pollIntervalMs,
      bodyPollIntervalMs: d.bodyPollIntervalMs,
      reconcileIntervalMs: d.reconcileIntervalMs,
      dashboardIntervalMs: d.dashboardIntervalMs,
      livenessIntervalMs: d.livenessIntervalMs,
    };
    w = await botWorld(timers, { webhook: false, botAdmin: true, writers: ["alice"] });
    const world = w;
    const alice = world.forge.admin.createToken("alice");
    await world
      .api(world.agentToken)
      .createComment(world.repo, world.issue, formatCheckpoint({ agent: A, session: "s1", phase: "clone_complete", timestamp: pythonUtcIsoformat(new Date()), data: {}, epoch: 1, seq: 1 }));
    // The bot learns of the checkpoint by its own poll; the test does not wait 30 s for it.
    await world.bot.pollAll();
    await world.bot.flushDashboards();
    const before = await world.api(alice).getIssue(world.repo, world.issue);
    expect(parseControlCheckboxes(before.body).some((b) => b.action === "pause")).toBe(true);

    // Tick pause as alice, the way the web page does (an edit of the body), and start the clock.
    const body = before.body
      .split("\n")
      .map((l) => {
        const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${l}\n<!-- checkpost:dashboard:end -->`)[0];
        return box?.action === "pause" ? l.replace(/^- \[ \]/, "- [x]") : l;
      })
      .join("\n");
    const t0 = performance.now();
    await world.api(alice).editIssue(world.repo, world.issue, { body });

    const deadline = t0 + LIMIT_MS;
    let recordedAt: number | null = null;
    let directiveAt: number | null = null;
    while (performance.now() < deadline && (recordedAt === null || directiveAt === null)) {
      if (recordedAt === null) {
        const comments = await world.api(alice).listComments(world.repo, world.issue);
        if (comments.some((c) => parseComment(c.body).kind === "control")) recordedAt = performance.now();
      }
      if (directiveAt === null) {
        const r = (await (await world.botFetch(`/api/resume?agent=${A}&session=s1`)).json()) as { directive: { kind: string } | null };
        if (r.directive?.kind === "pause") directiveAt = performance.now();
      }
      // Between looks, let the bot's timers run (the tick is found by its body poll, not by this test).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(recordedAt, "[CONTROL] recorded within 5 s").not.toBeNull();
    expect(directiveAt, "directive at /api/resume within 5 s").not.toBeNull();
    process.stdout.write(`tick-latency: [CONTROL] after ${Math.round((recordedAt as number) - t0)} ms, directive after ${Math.round((directiveAt as number) - t0)} ms\n`);
  });
});
