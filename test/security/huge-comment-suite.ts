import { afterEach, describe, expect, it } from "vitest";
import { botWorld, TIMERS_OFF } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { startBot } from "../../src/app/start-bot.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { formatCheckpoint, IMPLEMENTATION_WORKER_PHASE_MAP, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";

// Issue 9, attack 1: one comment of ~8 MB by anyone who may comment made every full read fail on
// Node 20 (octokit's response parser overflows the stack on a ~7.9 MiB string, then hands back the
// raw text, which the schema check rejected). Each read path must now survive it and answer right.

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const AGENT = "implementation-worker";
const cp = (phase: string) => formatCheckpoint({ agent: AGENT, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase } });
/** A body that opens like a checkpoint (so every reader looks at it) and is over `mb` MiB long. */
const huge = (mb: number) => `[CHECKPOINT] ${AGENT}\nSession: s1\nPhase: pr_created\n\`\`\`json\n{"pad":"${"x".repeat(mb * 1024 * 1024)}"}\n\`\`\`\n`;

/** The whole check for one body size; `npm test` runs 8 MiB, `npm run test:slow` 30 MiB (huge-comment-30mib.test.ts). */
export function hugeCommentSuite(mb: number): void {
  describe(`a ${mb} MiB comment by an untrusted author`, () => {
    it("breaks no read: resume, latest, status, bot start-up, poll and reconcile all answer right", { timeout: 120_000 }, async () => {
      const world = await botWorld({ maxWebhookBytes: 1024 * 1024 });
      w = world; // its delivery is refused (413): the bot must catch up by reading
      const agent = world.api(world.agentToken);
      await agent.createComment(world.repo, world.issue, cp("clone_complete"));
      const bomb = await world.api(world.malloryToken).createComment(world.repo, world.issue, huge(mb));
      expect(bomb.body.length).toBeGreaterThan(mb * 1024 * 1024);
      await agent.createComment(world.repo, world.issue, cp("subtask_1_complete"));
      await world.settle();

      const store = new SessionStore({ api: agent, repo: world.repo, issue: world.issue });
      // resume (cold: the index may be present or not; either path reads past the bomb)
      const r = await store.resume(AGENT, "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
      expect(r).toMatchObject({ phase: "subtask_1_complete", resume_point: "phase_2_continue", state: { phase: "subtask_1_complete" } });
      // latest
      expect((await store.latest(AGENT, "s1"))?.phase).toBe("subtask_1_complete");
      // status (the full snapshot): one row, the bomb counted against mallory, not stored
      const snap = await store.snapshot();
      expect(snap.entries.map((e) => [e.agent, e.latest?.phase])).toEqual([[AGENT, "subtask_1_complete"]]);
      expect(snap.anomalies).toEqual([
        expect.objectContaining({ kind: "untrusted-author", commentId: bomb.id, detail: "1 protocol comment, 1 over the size limit, by mallory, who is not a trusted author; ignored" }),
      ]);

      // the running bot: poll and reconcile succeed and agree
      const before = await world.bot.metrics.polls.get();
      await world.bot.pollAll();
      await world.bot.reconcileAll();
      const after = await world.bot.metrics.polls.get();
      expect(after.values.filter((v) => v.labels.result === "failed")).toEqual(before.values.filter((v) => v.labels.result === "failed"));
      expect(after.values.filter((v) => v.labels.result === "ok").reduce((n, v) => n + v.value, 0)).toBe(2);
      const t = world.bot.trackers()[0];
      expect(t?.projection.resume(AGENT, "s1", IMPLEMENTATION_WORKER_PHASE_MAP).phase).toBe("subtask_1_complete");

      // a second bot starting up reads the whole issue once
      const logs: string[] = [];
      const bot2 = await startBot(
        {
          ...defaultBotConfig({ url: world.forge.url, token: world.botToken }, [world.repo]),
          trustedAuthors: ["agent"],
          webhookSecret: "s",
          port: 0,
          ...TIMERS_OFF,
        },
        { logger: createLogger({ level: "warn", pretty: false, destination: { write: (s: string) => void logs.push(s) } as never }) },
      );
      try {
        expect(bot2.trackers()).toHaveLength(1);
        expect(bot2.trackers()[0]?.projection.latest(AGENT, "s1")?.phase).toBe("subtask_1_complete");
      } finally {
        await bot2.stop();
      }
    });
  });
}
