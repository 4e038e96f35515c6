import { afterEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { DashboardWriter } from "../../../src/bot/upkeep/dashboard-writer.ts";
import { DASHBOARD_END, DASHBOARD_START, unstampBody } from "../../../src/dashboard/index.ts";
import { fakeIssueBody } from "../../helpers/fake-issue-body.ts";

const fakeIssue = (initial: string) => fakeIssueBody(initial, {});

const section = (n: number) => `${DASHBOARD_START}\nrow ${n}\n${DASHBOARD_END}`;

afterEach(() => void vi.useRealTimers());

describe("DashboardWriter", () => {
  it("writes the section once, keeps the person's text, and skips a write when nothing changed", async () => {
    const { state, api } = fakeIssue("Hello\n");
    let n = 1;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, render: () => section(n), minIntervalMs: 60_000, logger: pino({ level: "silent" }) });
    w.markDirty();
    await w.flush();
    // The bot's stamp line (body-stamp.ts) ends its section.
    expect(unstampBody(state.body).startsWith(`Hello\n\n${section(1)}`)).toBe(true);
    expect(state.patches).toBe(1);
    w.markDirty();
    await w.flush();
    expect(state.patches).toBe(1); // unchanged: no write
    n = 2;
    w.markDirty();
    await w.flush();
    expect(state.body).toContain("row 2");
    expect(state.body.startsWith("Hello\n")).toBe(true);
    expect(state.patches).toBe(2);
  });

  it("coalesces many changes within a window into one write", async () => {
    const { state, api } = fakeIssue("");
    let n = 0;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, render: () => section(n), minIntervalMs: 60_000, logger: pino({ level: "silent" }) });
    n = 1;
    w.markDirty();
    await w.flush();
    for (n = 2; n < 50; n++) w.markDirty(); // inside the window: only scheduled
    expect(state.patches).toBe(1);
    await w.flush();
    expect(state.patches).toBe(2);
    w.stop();
  });

  it("keeps a person's edit whose webhook arrives while it writes", async () => {
    const { state, api } = fakeIssue("Hello\n");
    let n = 1;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, render: () => section(n), minIntervalMs: 0, logger: pino({ level: "silent" }) });
    w.markDirty();
    await w.flush();
    const human = state.body.replace("Hello", "Hello\nMy note");
    state.onAfterGet = () => {
      state.body = human;
      w.noteHumanEdit(human);
    };
    n = 2;
    w.markDirty();
    await w.flush();
    expect(state.body).toContain("My note");
    expect(state.body).toContain("row 2");
  });

  it("restores a person's edit that landed between its read and its write", async () => {
    const { state, api } = fakeIssue("Hello\n");
    let n = 1;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, render: () => section(n), minIntervalMs: 0, logger: pino({ level: "silent" }) });
    w.markDirty();
    await w.flush();
    // Next write: right after our read, a person edits the body; their webhook arrives after our write.
    const human = state.body.replace("Hello", "Hello\nMy important note");
    state.onAfterGet = () => {
      state.body = human;
    };
    state.onAfterPatch = () => w.noteHumanEdit(human);
    n = 2;
    w.markDirty();
    await w.flush();
    expect(state.body).not.toContain("My important note"); // the race: our write clobbered it…
    await w.flush();
    expect(state.body).toContain("My important note"); // …and the next write restores it
    expect(state.body).toContain("row 2");
  });
  it("flush leaves no timed write behind it: a change during a timed write is written once, with no extra read", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { state, api } = fakeIssue("Hello\n");
    let n = 1;
    const w = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, render: () => section(n), minIntervalMs: 0, logger: pino({ level: "silent" }) });
    // A change lands while the timed write reads the body; then the bot is flushed (tests, shutdown).
    state.onAfterGet = () => {
      n = 2;
      w.markDirty();
    };
    w.markDirty();
    vi.advanceTimersByTime(0); // the timed write starts
    await w.flush();
    expect(state.body).toContain("row 2");
    const reads = api.calls.filter((c) => c === "getIssue").length;
    // Nothing is left to write: no timer may still be set, and none may read the body again.
    expect(vi.getTimerCount()).toBe(0);
    vi.runAllTimers();
    await Promise.resolve();
    expect(api.calls.filter((c) => c === "getIssue").length).toBe(reads);
    w.stop();
  });
});
