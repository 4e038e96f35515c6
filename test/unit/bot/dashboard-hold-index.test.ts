import { describe, expect, it } from "vitest";
import pino from "pino";
import { DashboardWriter } from "../../../src/bot/upkeep/dashboard-writer.ts";
import { DASHBOARD_END, DASHBOARD_START, bodyStampMatches, dashboardChanged, stampBody, unstampBody } from "../../../src/dashboard/index.ts";
import { fakeIssueBody } from "../../helpers/fake-issue-body.ts";

const section = (n: number) => `${DASHBOARD_START}\nrow ${n}\n- [ ] <!-- checkpost:control pause WyJhIiwicyJd --> pause\n${DASHBOARD_END}`;

const fakeIssue = (initial: string) => fakeIssueBody(initial, { firstId: 100 });

const quiet = pino({ level: "silent" });

describe("the body stamp (another replica's write is not a person's edit)", () => {
  it("matches the body a bot wrote; a tick or a word of a person breaks it; dashboardChanged ignores it", () => {
    const body = stampBody(`notes\n\n${section(1)}\n`);
    expect(bodyStampMatches(body)).toBe(true);
    expect(bodyStampMatches(body.replace("- [ ]", "- [x]"))).toBe(false);
    expect(bodyStampMatches(body.replace("notes", "notes!"))).toBe(false);
    expect(bodyStampMatches(`notes\n\n${section(1)}\n`)).toBe(false);
    expect(unstampBody(body)).toBe(`notes\n\n${section(1)}\n`);
    expect(stampBody(body)).toBe(body); // stamping again replaces, never adds a second line
    expect(dashboardChanged(`notes\n\n${section(1)}\n`, body)).toBe(false);
  });

  it("a writer takes the body another replica's writer wrote as the bot's own, a person's tick of it as foreign", async () => {
    const { state, api } = fakeIssue("notes\n");
    const seen: string[] = [];
    const mine = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, minIntervalMs: 0, logger: quiet, render: () => section(1), onForeignEdit: async (b) => void seen.push(b) });
    mine.markDirty();
    await mine.flush();
    // The other replica (its own writer, same issue) writes while this one does not lead.
    const other = new DashboardWriter({ api, repo: { owner: "o", repo: "r" }, issue: 1, minIntervalMs: 0, logger: quiet, render: () => section(2) });
    other.markDirty();
    await other.flush();
    expect(mine.isOwnBody(state.body)).toBe(true);
    const ticked = state.body.replace("- [ ]", "- [x]");
    expect(mine.isOwnBody(ticked)).toBe(false);
    mine.stop();
    other.stop();
  });
});

describe("DashboardWriter: the resume index does not wait for a hold", () => {
  it("keeps the index current in the index comment during the hold, leaves the body alone, writes the body when the hold ends", async () => {
    const { state, api } = fakeIssue("notes\n");
    let content = "a";
    let watermark = 5;
    const w = new DashboardWriter({
      api,
      repo: { owner: "o", repo: "r" },
      issue: 1,
      minIntervalMs: 0,
      holdMs: 60_000,
      logger: quiet,
      render: () => section(watermark),
      resumeIndex: {
        render: () => ({ text: `<!-- checkpost:resume-index {"v":1,"watermark":${watermark},"c":"${content}"} -->`, since: "2026-01-01T00:00:00Z", content }),
        selfLogin: "bot",
        inlineMaxBytes: 8 * 1024, // a bot configured with an inline index (the default keeps every index in its comment)
      },
    });
    w.markDirty();
    await w.flush();
    expect(state.patches).toBe(1);
    expect(state.comments.size).toBe(0); // a small index: inline, no comment
    w.noteHumanEdit(`${state.body.replace("- [ ]", "- [x]")}`);
    // Nothing new in the index: nothing is written.
    await new Promise((r) => setTimeout(r, 30));
    expect(state.commentWrites).toBe(0);
    // A control recorded during the hold: the index changes.
    content = "b";
    watermark = 7;
    w.markDirty();
    await vi_waitFor(() => state.commentWrites === 1);
    expect(state.patches).toBe(1); // the body, and so the person's page, untouched
    const [text] = [...state.comments.values()];
    expect(text).toContain('"watermark":7');
    // Again: the same comment is edited, not a new one posted.
    content = "c";
    watermark = 9;
    w.markDirty();
    await vi_waitFor(() => state.commentWrites === 2);
    expect(state.comments.size).toBe(1);
    expect(state.patches).toBe(1);
    await w.flush(); // the hold's end (flush writes through it)
    expect(state.patches).toBe(2);
    expect(state.body).toContain("row 9");
    w.stop();
  });
});

async function vi_waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
}
