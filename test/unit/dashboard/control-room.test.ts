import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import {
  DASHBOARD_END,
  DASHBOARD_START,
  buildDashboardModel,
  checkboxCommands,
  dashboardChanged,
  formatControlCheckbox,
  parseControlCheckboxes,
  renderDashboard,
  renderGantt,
  spliceDashboard,
} from "../../../src/dashboard/index.ts";
import { formatControl } from "../../../src/protocol/index.ts";
import type { ControlInput } from "../../../src/protocol/index.ts";
import { T0, at, comment, cpBody, healthBody, policy } from "../projection/build-comments.ts";

const ctl = (o: Partial<ControlInput> & Pick<ControlInput, "action">) => formatControl({ agent: "implementation-worker", session: "s1", timestamp: "2026-11-29T10:00:00Z", by: "alice", ...o });
const bot = { author: "CI-Bot" };

describe("needs attention", () => {
  it("lists silent, then stale, then anomalies, unhealthy and paused agents, before the sessions", () => {
    const now = new Date(T0 + 2 * 3600_000);
    const s = projectComments(
      [
        comment(1, cpBody({ agent: "silent-one", session: "a" }), { createdAt: at(0) }),
        comment(2, cpBody({ agent: "stale-one", session: "a" }), { createdAt: at(2 * 3600 - 10 * 60) }),
        comment(3, cpBody({ agent: "zombie-one", session: "b", epoch: 2 }), { createdAt: at(2 * 3600 - 60) }),
        comment(4, cpBody({ agent: "zombie-one", session: "b", epoch: 1 }), { createdAt: at(2 * 3600 - 50) }),
        comment(5, healthBody({ agent: "sick-one", session: "b", status: "Degraded" }), { createdAt: at(2 * 3600 - 30) }),
        comment(6, cpBody({ session: "c" }), { createdAt: at(2 * 3600 - 20) }),
        comment(7, ctl({ action: "pause", session: "c" }), { ...bot, createdAt: at(2 * 3600 - 10) }),
        comment(8, cpBody({ agent: "fine-one", session: "c" }), { createdAt: at(2 * 3600 - 5) }),
      ],
      policy,
    );
    const m = buildDashboardModel(s, now);
    expect(m.attention.map((r) => [r.entry.agent, r.reasons[0]?.kind])).toEqual([
      ["silent-one", "silent"],
      ["stale-one", "stale"],
      // The zombie is newer than the resume point: the row says why it was not used (an anomaly's rank).
      ["zombie-one", "not-used"],
      ["sick-one", "health"],
      ["implementation-worker", "paused"],
    ]);
    expect(m.sessions.map((g) => [g.session, g.rows.map((r) => r.entry.agent)])).toEqual([
      ["a", ["silent-one", "stale-one"]],
      ["b", ["sick-one", "zombie-one"]],
      ["c", ["fine-one", "implementation-worker"]],
    ]);
    const out = renderDashboard(s, now);
    expect(out).toContain("| implementation-worker / c | ⏸️ paused by alice just now |");
    expect(out).toContain("⏸️ Paused (🟢 Active)");
    expect(out).toContain("⚠️ Degraded");
  });

  it("hides a hidden row until the agent signals again", () => {
    const rows = [comment(1, cpBody()), comment(2, ctl({ action: "hide" }), bot)];
    const hidden = renderDashboard(projectComments(rows, policy), new Date(T0 + 60_000));
    expect(hidden).toContain("1 hidden");
    expect(hidden).not.toContain("| implementation-worker |");
    const back = renderDashboard(projectComments([...rows, comment(3, healthBody())], policy), new Date(T0 + 60_000));
    expect(back).toContain("| implementation-worker |");
  });
});

describe("row cap and size bound", () => {
  const many = (n: number, stale: number) =>
    projectComments(
      Array.from({ length: n }, (_, i) =>
        comment(i + 1, cpBody({ agent: `agent-${String(i).padStart(5, "0")}-${"x".repeat(40)}`, session: `session-${i % 100}`, id: `cp-${String(i).padStart(12, "0")}`, seq: 1 }), {
          createdAt: at(i < stale ? 0 : 3000),
        }),
      ),
      policy,
    );

  it("shows needs-attention rows first within the cap, then 'and N more'", () => {
    const s = many(200, 30);
    const m = buildDashboardModel(s, new Date(T0 + 3060_000), { maxRows: 40 });
    expect(m.attention).toHaveLength(30);
    expect(m.sessions.reduce((n, g) => n + g.rows.length, 0)).toBe(40);
    expect(m.omitted).toBe(160);
    const out = renderDashboard(s, new Date(T0 + 3060_000), { maxRows: 40 });
    expect(out).toContain("_…and 160 more agent sessions not shown");
    // Every stale agent is among the shown rows.
    for (let i = 0; i < 30; i++) expect(out).toContain(`| agent-${String(i).padStart(5, "0")}`);
  });

  it("caps needs-attention too when it alone is over the cap", () => {
    const m = buildDashboardModel(many(100, 100), new Date(T0 + 3060_000), { maxRows: 10 });
    expect([m.attention.length, m.omittedAttention, m.omitted]).toEqual([10, 90, 90]);
  });

  it("at 10,000 agents the people's part stays under 96 KiB (the resume index is bounded separately)", () => {
    const out = renderDashboard(many(10_000, 500), new Date(T0 + 3060_000));
    const index = out.split("\n").find((l) => l.startsWith("<!-- checkpost:resume-index")) ?? "";
    expect(index.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(out) - Buffer.byteLength(index)).toBeLessThan(96 * 1024);
    expect(out).toContain("_…and 9950 more agent sessions not shown");
  });
});

describe("control checkboxes", () => {
  it("round-trip, with names that cannot close the comment or mention anyone", () => {
    const evil = { agent: "a --> @admin <b>", session: "s\n-->" };
    const line = formatControlCheckbox({ ...evil, action: "pause", checked: true }, "Pause");
    expect(line).toMatch(/^- \[x\] <!-- checkpost:control pause [A-Za-z0-9_-]+ --> Pause$/);
    const body = `${DASHBOARD_START}\n${line}\n${formatControlCheckbox({ ...evil, action: "rewind", target: 42, checked: false }, "Rewind")}\n${DASHBOARD_END}`;
    expect(parseControlCheckboxes(body)).toEqual([
      { ...evil, action: "pause", checked: true },
      { ...evil, action: "rewind", target: 42, checked: false },
    ]);
    // Outside the section, the same lines are a person's and mean nothing.
    expect(parseControlCheckboxes(line)).toEqual([]);
  });

  it("turn a person's edit into commands: ticked pause → pause, unticked → unpause, ticked rewind/release/hide → act", () => {
    const s = projectComments([comment(1, cpBody({ phase: "clone_complete" })), comment(2, cpBody({ phase: "commit_complete" }))], policy);
    const before = spliceDashboard("notes", renderDashboard(s, new Date(T0 + 60_000)));
    const tick = (body: string, action: string) =>
      body
        .split("\n")
        .map((l) => (l.includes(`checkpost:control ${action} `) ? l.replace("- [ ]", "- [x]") : l))
        .join("\n");
    expect(checkboxCommands(before, tick(before, "pause"))).toEqual([{ action: "pause", agent: "implementation-worker", session: "s1" }]);
    expect(checkboxCommands(before, tick(before, "rewind"))).toEqual([{ action: "rewind", agent: "implementation-worker", session: "s1", target: 1 }]);
    expect(checkboxCommands(before, tick(tick(before, "release"), "hide")).map((c) => c.action)).toEqual(["release", "hide"]);
    expect(checkboxCommands(before, before)).toEqual([]);
    const paused = projectComments([comment(1, cpBody()), comment(2, ctl({ action: "pause" }), bot)], policy);
    const pausedBody = renderDashboard(paused, new Date(T0 + 60_000));
    expect(pausedBody).toContain("- [x] <!-- checkpost:control pause");
    expect(checkboxCommands(pausedBody, pausedBody.replace("- [x] <!-- checkpost:control pause", "- [ ] <!-- checkpost:control pause"))).toEqual([
      { action: "unpause", agent: "implementation-worker", session: "s1" },
    ]);
  });
});

describe("timeline and write rate", () => {
  it("draws each agent's phases over the last 24 h as a Mermaid Gantt with safe names", () => {
    const s = projectComments(
      [comment(1, cpBody({ agent: "w:1;#x", phase: "clone_complete" }), { createdAt: at(0) }), comment(2, cpBody({ agent: "w:1;#x", phase: "commit: done" }), { createdAt: at(1800) })],
      policy,
    );
    const m = buildDashboardModel(s, new Date(T0 + 7200_000));
    const g = renderGantt(m.sessions[0]?.rows ?? [], new Date(T0 + 7200_000)) ?? "";
    expect(g.split("\n")).toEqual([
      "```mermaid",
      "gantt",
      "    dateFormat YYYY-MM-DDTHH:mm",
      "    axisFormat %H:%M",
      "    section w_1__x / s1",
      "    clone_complete :2026-11-29T10:00, 2026-11-29T10:30",
      "    commit_ done :2026-11-29T10:30, 2026-11-29T12:00",
      "```",
    ]);
    // Days later only the current phase is in the window, clipped to its start.
    const later = renderGantt(m.sessions[0]?.rows ?? [], new Date(T0 + 3 * 86400_000)) ?? "";
    expect(later).toContain("    commit_ done :2026-12-01T10:00, 2026-12-02T10:00");
    expect(later).not.toContain("clone_complete");
    expect(renderGantt([], new Date(T0))).toBeNull();
  });

  it("does not ask for a write when only the clock moves within the hour", () => {
    const s = projectComments([comment(1, cpBody()), comment(2, healthBody(), { createdAt: at(60) })], policy);
    const body = (ms: number) => spliceDashboard("", renderDashboard(s, new Date(T0 + ms)));
    expect(dashboardChanged(body(120_000), body(170_000))).toBe(false);
    expect(dashboardChanged(body(120_000), body(240_000))).toBe(false);
  });
});
