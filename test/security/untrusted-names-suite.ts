import { afterEach, describe, expect, it } from "vitest";
import { botWorld, TIMERS_OFF } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { startBot } from "../../src/app/start-bot.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { formatCheckpoint } from "../../src/protocol/index.ts";
import { MAX_UNTRUSTED_AUTHORS_LISTED } from "../../src/projection/index.ts";

// Issue 9, attack 5 (scale): 20,000 untrusted agent names made bot start-up O(N²) (40 s), each
// name a dashboard row, a Silent state and a stale alert. Now they are counted and nothing else.
// The start-up time is measured by the reliability suite (docs/reliability.md), not here.

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const cp = (agent: string) => formatCheckpoint({ agent, session: "s1", phase: "clone_complete", timestamp: "2026-11-29T10:00:00Z", data: {} });

/** `npm test` runs 2,000 names (untrusted-names.test.ts), `npm run test:slow` 20,000 (untrusted-names-20k.test.ts). */
export function untrustedNamesSuite(N: number): void {
  describe(`${N} untrusted agent names`, () => {
    it("start-up, liveness and the dashboard hold only the trusted agent; anomalies stay bounded", { timeout: 300_000 }, async () => {
      const world = await botWorld();
      w = world;
      const a = world.forge.admin;
      // 200 untrusted authors × 100 names each, plus one trusted checkpoint.
      for (let u = 0; u < 200; u++) a.createUser(`stranger${u}`);
      a.bulkComments(
        "agent",
        "work",
        world.issue,
        Array.from({ length: N }, (_, i) => ({ login: `stranger${i % 200}`, body: cp(`ghost-${i}`) })),
      );
      a.bulkComments("agent", "work", world.issue, [{ login: "agent", body: cp("implementation-worker") }]);

      const bot = await startBot(
        {
          ...defaultBotConfig({ url: world.forge.url, token: world.botToken }, [world.repo]),
          trustedAuthors: ["agent"],
          webhookSecret: "s",
          port: 0,
          ...TIMERS_OFF,
          liveness: { minStaleMs: 60_000 },
          staleAlerts: true,
        },
        { logger: createLogger({ level: "silent", pretty: false }), now: () => new Date(Date.now() + 3600_000) },
      );
      try {
        // The bot's own comments (its index comment, an alert) may land while it starts (CI saw N + 2).
        await bot.flushDashboards();
        const all = await world.api(world.agentToken).listComments(world.repo, world.issue);
        const own = all.filter((c) => c.author === "checkpost-bot");
        expect(all.length - own.length).toBe(N + 1);
        expect(own.length).toBeLessThanOrEqual(2);
        const t = bot.trackers()[0];
        const snap = t?.projection.snapshot();
        // Every agent comment is held; the bot's own are held once folded back in (timing), never more.
        expect(snap?.comments).toBeGreaterThanOrEqual(N + 1);
        expect(snap?.comments).toBeLessThanOrEqual(all.length);
        expect(snap?.entries.map((e) => e.agent)).toEqual(["implementation-worker"]);
        expect(Object.keys(t?.livenessStates() ?? {})).toHaveLength(1);
        const untrusted = snap?.anomalies.filter((x) => x.kind === "untrusted-author") ?? [];
        expect(untrusted).toHaveLength(MAX_UNTRUSTED_AUTHORS_LISTED + 1);
        expect(untrusted[0]?.detail).toBe(`${200 - MAX_UNTRUSTED_AUTHORS_LISTED} more untrusted authors wrote ${(200 - MAX_UNTRUSTED_AUTHORS_LISTED) * (N / 200)} protocol comments; ignored`);
        // One alert at most: the trusted agent's (an hour silent).
        const alerts = (await world.api(world.agentToken).listComments(world.repo, world.issue)).filter((c) => c.body.startsWith("<!-- checkpost:alert"));
        expect(alerts.length).toBeLessThanOrEqual(1);
        // The dashboard it would write has one row.
        await bot.flushDashboards();
        const body = (await world.api(world.agentToken).getIssue(world.repo, world.issue)).body;
        expect(body).not.toMatch(/ghost-/);
        expect(Buffer.byteLength(body)).toBeLessThan(64 * 1024);
      } finally {
        await bot.stop();
      }
    });
  });
}
