import { describe, expect, it } from "vitest";
import pino from "pino";
import { DashboardWriter } from "../../../src/bot/upkeep/dashboard-writer.ts";
import { IssueLease } from "../../../src/bot/replicas/issue-lease.ts";
import { DASHBOARD_END, DASHBOARD_START, checkboxCommands, dashboardRenderKey, formatControlCheckbox, tickCommandKey } from "../../../src/dashboard/index.ts";
import { MemoryLeaseStore } from "../../../src/bot-state/memory-projection-store.ts";
import { fakeIssueBody } from "../../helpers/fake-issue-body.ts";

const section = (n: number) => `${DASHBOARD_START}\nrow ${n}\n${DASHBOARD_END}`;

const fakeIssue = (initial: string) => fakeIssueBody(initial, { login: "bot" });

describe("DashboardWriter hold after a person's edit", () => {
  it("timed writes wait for the hold; an explicit flush writes through it", async () => {
    const { state, api } = fakeIssue("notes\n");
    let n = 0;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, minIntervalMs: 0, holdMs: 60_000, logger: pino({ level: "silent" }), render: () => section(++n) });
    w.markDirty();
    await w.flush();
    expect(state.patches).toBe(1);
    w.noteHumanEdit(`${state.body}\nmore notes`);
    expect(w.held()).toBe(true);
    w.markDirty();
    await new Promise((r) => setTimeout(r, 30));
    expect(state.patches).toBe(1); // held: the person's next tick on the same page stays valid
    await w.flush();
    expect(state.patches).toBe(2);
    w.stop();
  });

  it("tells a person's edit read before a write to the tracker (polling: no webhook said so)", async () => {
    const { state, api } = fakeIssue("notes\n");
    const seen: string[] = [];
    const w = new DashboardWriter({
      api,
      repo: { owner: "o", repo: "r" },
      issue: 1,
      minIntervalMs: 0,
      logger: pino({ level: "silent" }),
      render: () => section(1),
      onForeignEdit: async (body) => void seen.push(body),
    });
    w.markDirty();
    await w.flush();
    state.body = `${state.body}\nedited by a person`;
    const edited = state.body;
    w.markDirty();
    await w.flush();
    expect(seen).toEqual([edited]);
    w.stop();
  });
});

describe("tick keys", () => {
  it("a tick keeps the render key; a bot write changes it; the key names the box, not its position", () => {
    const body = (updated: string, ticked: boolean) =>
      `people\n${DASHBOARD_START}\n_Updated ${updated}_\n- [${ticked ? "x" : " "}] <!-- checkpost:control pause WyJhIiwicyJd --> pause\n${DASHBOARD_END}\n`;
    expect(dashboardRenderKey(body("1", true))).toBe(dashboardRenderKey(body("1", false)));
    expect(dashboardRenderKey(body("2", false))).not.toBe(dashboardRenderKey(body("1", false)));
    // People's text outside the section does not change it either.
    expect(dashboardRenderKey(`more ${body("1", false)}`)).toBe(dashboardRenderKey(body("1", false)));
    const k = dashboardRenderKey(body("1", false));
    expect(tickCommandKey(k, { action: "pause", agent: "a", session: "s" })).not.toBe(tickCommandKey(k, { action: "unpause", agent: "a", session: "s" }));
  });
});

describe("ticks map by the box's own key, not its position (issue 19.5)", () => {
  it("a hidden task line added to people's text shifts no box onto another", () => {
    const box = (agent: string, checked: boolean) => formatControlCheckbox({ action: "pause", agent, session: "s1", checked }, `Pause ${agent}`);
    const before = `notes\n${DASHBOARD_START}\n${box("agent-a", false)}\n${box("agent-b", false)}\n${DASHBOARD_END}\n`;
    const after = `<!--\n- [ ] invisible\n-->\nnotes\n${DASHBOARD_START}\n${box("agent-a", false)}\n${box("agent-b", true)}\n${DASHBOARD_END}\n`;
    expect(checkboxCommands(before, after)).toEqual([{ action: "pause", agent: "agent-b", session: "s1" }]);
  });
});

describe("IssueLease.leaderLapsed", () => {
  it("says so when no lease is held or the holder missed its renewals (over half the TTL unrenewed)", async () => {
    let now = 1_000_000;
    // IssueLease takes only the LeaseStore port: its in-memory fake, on the test's clock.
    const store = new MemoryLeaseStore(() => now);
    const logger = pino({ level: "silent" });
    const leader = new IssueLease({ store, name: "o/r#1", holder: "a", ttlMs: 30_000, logger });
    const follower = new IssueLease({ store, name: "o/r#1", holder: "b", ttlMs: 30_000, logger, mayTake: () => false });
    expect(await follower.leaderLapsed(now)).toBe(true);
    await leader.tick();
    expect(await follower.leaderLapsed(now)).toBe(false);
    now += 10_000; // one renewal period: renewed
    await leader.tick();
    expect(await follower.leaderLapsed(now + 14_000)).toBe(false);
    // The leader dies: 15 s after its last renewal the follower reads Forgejo itself, well before the lease ends.
    expect(await follower.leaderLapsed(now + 15_001)).toBe(true);
  });
});
