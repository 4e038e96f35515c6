import { afterEach, describe, expect, it } from "vitest";
import { botWorld, TIMERS_OFF } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { alertBody, parseAlert } from "../../src/bot/alerts/stale-alert.ts";
import { startBot } from "../../src/app/start-bot.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { entryKey, liveness } from "../../src/projection/index.ts";
import type { AgentEntry } from "../../src/projection/index.ts";

// Issue 9, attack 5: untrusted authors drove bot output (dashboard rows, "Silent" states, stale
// alerts, metric labels), and a name could break out of the stale alert's hidden key, placing
// @mention / <img> text in a bot-authored comment, repeated on every restart.

let w: BotWorld;
afterEach(async () => w?.close());

const cp = (agent: string, phase = "clone_complete", session = "s1") => formatCheckpoint({ agent, session, phase, timestamp: pythonUtcIsoformat(new Date()), data: {} });

describe("untrusted comments drive no bot output", () => {
  it("no row, no liveness state, no alert, no metric label; one anomaly line per author", async () => {
    w = await botWorld();
    const mallory = w.api(w.malloryToken);
    for (let i = 0; i < 5; i++) await mallory.createComment(w.repo, w.issue, cp(`ghost-${i}`));
    await mallory.createComment(w.repo, w.issue, formatHealth({ agent: "ghost-h", session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: {} }));
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("implementation-worker"));
    await w.settle();
    await w.bot.checkLiveness();
    w.advance(24 * 3600_000); // everything is long silent now
    await w.bot.checkLiveness();
    await w.settle();

    const t = w.bot.trackers()[0];
    expect(t?.projection.snapshot().entries.map((e) => e.agent)).toEqual(["implementation-worker"]);
    expect(Object.keys(t?.livenessStates() ?? {})).toEqual([entryKey("implementation-worker", "s1")]);
    const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
    expect(body).not.toMatch(/ghost/);
    const alerts = (await w.api(w.agentToken).listComments(w.repo, w.issue)).filter((c) => c.body.startsWith("<!-- checkpost:alert"));
    expect(alerts.map((c) => parseAlert(c.body)?.split("\u0000")[0])).toEqual([entryKey("implementation-worker", "s1")]);
    const metrics = await (await w.botFetch("/metrics")).text();
    expect(metrics).not.toMatch(/ghost/);
    expect(metrics).toMatch(/checkpost_agents\{liveness="silent"\} 1/);
    const anomalies = t?.projection.anomalies() ?? [];
    expect(anomalies.filter((a) => a.kind === "untrusted-author").map((a) => a.detail)).toEqual(["6 protocol comments by mallory, who is not a trusted author; ignored"]);
  });
});

describe("a name cannot break out of the stale alert", () => {
  const hostile = "evil --> @admin <img src=x onerror=alert(1)> #1 --!> &amp;";
  const entry: AgentEntry = {
    agent: hostile,
    session: `s --> @root`,
    latest: null,
    maxEpoch: 0,
    counts: { checkpoints: 1, health: 0, invalid: 0, untrusted: 0 },
    health: null,
    lastSignalAt: "2026-11-29T10:00:00.000Z",
    intervalsMs: [],
  };
  const now = new Date("2026-11-29T12:00:00Z");

  it("the hidden key holds no `>`, `<`, `&`, `@` or `#`; the visible text mentions nobody; the key reads back", () => {
    const body = alertBody(entry, "stale", liveness(entry, now), now);
    const [first, ...rest] = body.split("\n");
    expect(first?.endsWith(" -->")).toBe(true);
    const key = (first as string).slice("<!-- checkpost:alert ".length, -" -->".length);
    expect(key).not.toMatch(/[<>&@#]/);
    const visible = rest.join("\n");
    expect(visible).not.toMatch(/<img|-->|@admin|@root|#1/);
    expect(parseAlert(body)).toBe(`${entryKey(hostile, "s --> @root")}\u0000stale\u00002026-11-29T10:00:00.000Z`);
  });

  it("end to end: a trusted agent with such a name gets one alert, not repeated by a restarted bot", async () => {
    w = await botWorld();
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp(hostile));
    await w.settle();
    await w.bot.checkLiveness();
    w.advance(2 * 60_000);
    await w.bot.checkLiveness();
    await w.settle();
    const alerts = () =>
      w
        .api(w.agentToken)
        .listComments(w.repo, w.issue)
        .then((cs) => cs.filter((c) => c.body.startsWith("<!-- checkpost:alert")));
    const [a] = await alerts();
    const body = a?.body ?? "";
    expect(body.indexOf("-->")).toBe(body.indexOf("\n") - 3); // the only comment close is the marker's own
    expect(body).not.toMatch(/<img|@admin/);
    // A restarted bot re-reads the issue, recognises its own alert and does not post it again.
    const bot2 = await startBot(
      {
        ...defaultBotConfig({ url: w.forge.url, token: w.botToken }, [w.repo]),
        trustedAuthors: ["agent"],
        webhookSecret: "s",
        port: 0,
        ...TIMERS_OFF,
        liveness: { minStaleMs: 60_000 },
        staleAlerts: true,
      },
      { logger: createLogger({ level: "silent", pretty: false }), now: () => new Date(Date.now() + 2 * 60_000) },
    );
    try {
      expect(Object.values(bot2.trackers()[0]?.livenessStates() ?? {})).toEqual(["stale"]);
      expect(await alerts()).toHaveLength(1);
    } finally {
      await bot2.stop();
    }
  });
});
