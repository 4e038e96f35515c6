import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import type { ProjectionSnapshot } from "../../../src/projection/index.ts";
import {
  DASHBOARD_END,
  DASHBOARD_START,
  dashboardChanged,
  escapeMarkdown,
  extractResumeIndex,
  findDashboardSections,
  formatAge,
  renderDashboard,
  safeUrl,
  spliceDashboard,
} from "../../../src/dashboard/index.ts";
import { T0, at, comment, cpBody, healthBody, policy } from "../projection/build-comments.ts";

const now = new Date(T0 + 600_000); // 10 minutes after T0
const snap = (): ProjectionSnapshot =>
  projectComments(
    [
      comment(1, cpBody({ phase: "clone_complete", seq: 1, id: "cp-00000001" })),
      comment(2, cpBody({ phase: "commit_complete", seq: 2, epoch: 1, id: "cp-00000002" }), { createdAt: at(420) }),
      comment(3, healthBody({ status: "Active" }), { createdAt: at(540) }),
      comment(4, cpBody({ agent: "pr-self-reviewer", phase: "review_posted" }), { author: "mallory" }),
      comment(5, cpBody({ agent: "pr-self-reviewer", phase: "review_posted" })),
      comment(6, "chatter"),
    ],
    policy,
  );

describe("renderDashboard", () => {
  it("renders header, needs-attention first, sessions, legend, how to resume, anomalies and the resume index", () => {
    const out = renderDashboard(snap(), now);
    const lines = out.split("\n");
    expect(lines[0]).toBe(DASHBOARD_START);
    expect(lines.at(-1)).toBe(DASHBOARD_END);
    expect(out).toContain("_Updated 2026-11-29 10:10 UTC; ages are as of then_");
    // No CHECKPOST_DOCS_URL: no link to a page that may not exist (the package is not on a registry); the file is named.
    expect(out).toContain("docs/dashboard.md in the checkpost package says what each part means");
    expect(out).not.toContain("npmjs.com");
    expect(out).not.toContain("npx checkpost");
    expect(renderDashboard(snap(), now, { docsUrl: "http://bot.internal:3000/docs/" })).toContain("[what each part means](http://bot.internal:3000/docs/dashboard.md)");
    expect(out).toContain("2 agent sessions · 1 needs attention · 1 anomaly");
    const order = ["#### Needs attention", "#### Agents by session", "##### Session s1", "**Legend:**", "**How to resume:**", "#### Recent anomalies"].map((h) => out.indexOf(h));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    const worker = lines.find((l) => l.startsWith("| implementation"));
    expect(worker).toBe(
      "| implementation-worker | commit\\_complete → phase\\_4\\_pr | [3m ago](https://forge.example/o/r/issues/1#issuecomment-2) · seq 2 · epoch 1 | [Active · 1m ago](https://forge.example/o/r/issues/1#issuecomment-3) | 🟢 Active |",
    );
    const reviewer = lines.find((l) => l.startsWith("| pr-self-reviewer |"));
    expect(reviewer).toBe("| pr-self-reviewer | review\\_posted | [9m ago](https://forge.example/o/r/issues/1#issuecomment-5) | — | 🟡 Stale |");
    // The stale reviewer is listed first, under Needs attention, with the reason.
    const attention = lines.find((l) => l.startsWith("| pr-self-reviewer / s1 |"));
    expect(attention).toContain("🟡 stale, last signal 9m ago");
    expect(lines.indexOf(attention ?? "")).toBeLessThan(lines.indexOf(worker ?? ""));
    expect(out).toContain("- [comment 4](https://forge.example/o/r/issues/1#issuecomment-4) **untrusted-author**: 1 protocol comment by mallory, who is not a trusted author; ignored");
    expect(out).toContain("`checkpost resume --agent A --session S`");
    expect(extractResumeIndex(out)).toEqual({
      v: 1,
      watermark: 6,
      watermarkUpdatedAt: new Date(at(540)).toISOString(),
      entries: [
        // signalAt and gapsMs: the liveness inputs as of the watermark (the health at 540 s is the last signal).
        {
          agent: "implementation-worker",
          session: "s1",
          commentId: 2,
          id: "cp-00000002",
          seq: 2,
          epoch: 1,
          at: new Date(at(420)).toISOString(),
          maxEpoch: 1,
          signalAt: new Date(at(540)).toISOString(),
          gapsMs: [419_000, 120_000],
        },
        { agent: "pr-self-reviewer", session: "s1", commentId: 5, at: new Date(at(5)).toISOString(), maxEpoch: 0, signalAt: new Date(at(5)).toISOString() },
      ],
      complete: true,
    });
  });

  it("is deterministic for the same (snapshot, now) and shows liveness from the agent's cadence", () => {
    expect(renderDashboard(snap(), now)).toBe(renderDashboard(snap(), now));
    const later = renderDashboard(snap(), new Date(T0 + 540_000 + 16 * 60_000));
    expect(later).toContain("| 🟡 Stale |");
    const much = renderDashboard(snap(), new Date(T0 + 3 * 86400_000));
    expect(much).toContain("| 🔴 Silent |");
    expect(much).toContain("[2d ago]");
  });

  it("says so when there is nothing yet and lists at most maxAnomalies", () => {
    const empty = renderDashboard(projectComments([], policy), now);
    expect(empty).toContain("_No checkpoints or health signals yet._");
    expect(empty).toContain("_None._");
    const many = projectComments(
      Array.from({ length: 15 }, (_, i) => comment(i + 1, cpBody(), { author: `mallory${i}` })),
      policy,
    );
    const out = renderDashboard(many, now, { maxAnomalies: 3 });
    expect(out.split("\n").filter((l) => l.startsWith("- [comment"))).toHaveLength(3);
    expect(out.indexOf("comment 15")).toBeLessThan(out.indexOf("comment 14"));
    expect(out).not.toContain("comment 12]");
    // An agent+session known only from untrusted comments gets no row.
    expect(out).not.toContain("| implementation-worker |");
  });

  it("escapes names so a | or < cannot break the table or inject HTML, mentions or markers", () => {
    const evil = projectComments([comment(1, cpBody({ agent: "a|b<img src=x>", session: `@admin #1 ${DASHBOARD_END}`, phase: "**bold**|[x](javascript:alert(1))" }))], policy);
    const out = renderDashboard(evil, now, { phaseMaps: {} });
    const rows = out.split("\n").filter((l) => l.startsWith("| a"));
    expect(rows).toHaveLength(2); // needs attention (stale) and its session's table
    expect(rows[0]?.split(/(?<!\\)\|/)).toHaveLength(6); // 4 cells + the two outer edges
    const row = rows[1] ?? "";
    expect(row.split(/(?<!\\)\|/)).toHaveLength(7); // 5 cells + the two outer edges
    expect(out).not.toMatch(/<img/);
    expect(row).not.toMatch(/@admin|#1/);
    const heading = out.split("\n").find((l) => l.startsWith("##### Session")) ?? "";
    expect(heading).toContain("&lt;\\!-- checkpost:dashboard:end --&gt;");
    expect(heading).not.toMatch(/@admin|#1/);
    expect(out.split("\n").filter((l) => l.includes(DASHBOARD_END))).toEqual([DASHBOARD_END]);
    expect(findDashboardSections(out)).toEqual([{ start: 0, end: out.length }]);
    expect(extractResumeIndex(out)?.entries[0]?.session).toBe(`@admin #1 ${DASHBOARD_END}`);
  });
});

describe("escapeMarkdown / safeUrl / formatAge", () => {
  it("escapes Markdown and HTML, flattens lines, truncates", () => {
    expect(escapeMarkdown('a|b <i>&"')).toBe("a\\|b &lt;i&gt;&amp;&quot;");
    expect(escapeMarkdown("x\ny\r\nz")).toBe("x y z");
    expect(escapeMarkdown("_*`[]()~!+#{}\\")).toBe("\\_\\*\\`\\[\\]\\(\\)\\~\\!\\+\\#\\{\\}\\\\");
    expect(escapeMarkdown("@bob")).toBe("@\u2060bob");
    expect(escapeMarkdown("see http://x")).toBe("see http\\://x");
    expect(escapeMarkdown("abcdef", 4)).toBe("abc…");
  });

  it("links only http(s) and encodes characters that end a link", () => {
    expect(safeUrl("javascript:alert(1)")).toBeNull();
    expect(safeUrl(undefined)).toBeNull();
    expect(safeUrl("https://x/a b")).toBeNull();
    expect(safeUrl("https://x/a)(")).toBe("https://x/a%29%28");
  });

  it("formats ages", () => {
    expect([-5, 59_999, 60_000, 3_599_999, 3_600_000, 47 * 3_600_000, 48 * 3_600_000].map(formatAge)).toEqual(["just now", "just now", "1m ago", "59m ago", "1h ago", "47h ago", "2d ago"]);
  });
});

describe("dashboardChanged", () => {
  it("ignores the Updated line and ages, but not liveness, content or outside text", () => {
    const s = snap();
    const body = (t: number, extra = "") => spliceDashboard(`notes${extra}`, renderDashboard(s, new Date(T0 + t)));
    expect(dashboardChanged(body(600_000), body(600_000))).toBe(false);
    expect(dashboardChanged(body(600_000), body(660_000))).toBe(false); // ages move, nothing else
    expect(dashboardChanged(body(600_000), body(600_000 + 30 * 60_000))).toBe(true); // liveness moved
    expect(dashboardChanged(body(600_000), body(600_000, "!"))).toBe(true);
    const s2 = projectComments([comment(7, cpBody({ phase: "pr_created" }))], policy);
    expect(dashboardChanged(body(600_000), spliceDashboard("notes", renderDashboard(s2, now)))).toBe(true);
  });

  it("counts a moved watermark as a change (the resume index changed)", () => {
    const a = projectComments([comment(1, cpBody())], policy);
    const b = projectComments([comment(1, cpBody()), comment(2, "chatter")], policy);
    expect(dashboardChanged(spliceDashboard("", renderDashboard(a, now)), spliceDashboard("", renderDashboard(b, now)))).toBe(true);
  });

  it("compares a CRLF body line-insensitively inside the section only", () => {
    const section = renderDashboard(snap(), now);
    const lf = spliceDashboard("a\nb\n", section);
    const crlf = spliceDashboard("a\r\nb\r\n", section);
    expect(dashboardChanged(crlf, spliceDashboard(crlf, renderDashboard(snap(), new Date(now.getTime() + 60_000))))).toBe(false);
    expect(dashboardChanged(lf, crlf)).toBe(true);
  });
});

describe("renderDashboard: checkpoints not used", () => {
  const seed = (phase: string) =>
    `[CHECKPOINT] implementation-worker\nVersion: 1.0\nPhase: ${phase}\nSession: s1\nTime: 2026-11-29T10:05:00\n\nState Data:\n\`\`\`json\n{}\n\n---\n\nAutomated by CleverAgents Bot Agent: implementation-worker`;
  const comments = [comment(1, cpBody({ phase: "clone_complete", seq: 1, epoch: 2, id: "cp-00000001" }), { createdAt: at(60) }), comment(2, seed("subtask_1_complete"), { createdAt: at(300) })];

  it("says why a seed writer's newer checkpoint was not used and which setting decided, in needs attention and in the agent's details", () => {
    const out = renderDashboard(projectComments(comments, policy), now);
    const why = "legacy writer without Epoch below fence 2 (`CHECKPOST_LEGACY_WRITERS=fence`; `CHECKPOST_LEGACY_WRITERS=accept` would resume from it)";
    const attention = out.slice(out.indexOf("#### Needs attention"), out.indexOf("#### Agents by session"));
    expect(attention).toContain(`not used: ${why}`);
    // The not-used line replaces the bare anomaly reason for the same comment.
    expect(attention).not.toContain("zombie (comment 2)");
    const details = out.slice(out.indexOf("<details>"), out.indexOf("</details>"));
    expect(details).toContain("Newer checkpoints not used, newest first:");
    expect(details).toContain(`(comment 2): ${why}`);
  });

  it("accept: the same checkpoint is the resume point and nothing is listed as not used", () => {
    const out = renderDashboard(projectComments(comments, { ...policy, legacyWriters: "accept" }), now);
    expect(out).not.toContain("not used");
    expect(out).toContain("| implementation-worker | subtask\\_1\\_complete → phase\\_2\\_continue |");
  });
});
