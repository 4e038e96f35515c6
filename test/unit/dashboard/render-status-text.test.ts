import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import { buildDashboardModel, renderStatusText } from "../../../src/dashboard/index.ts";
import { formatControl } from "../../../src/protocol/index.ts";
import { T0, at, comment, cpBody, healthBody, policy } from "../projection/build-comments.ts";

const now = new Date(T0 + 3600_000);
const snap = () =>
  projectComments(
    [
      comment(1, cpBody({ agent: "old-one", phase: "clone_complete" }), { createdAt: at(0) }),
      comment(2, cpBody({ agent: "evil\u001b]0;pwned\u0007\u001b[2J", phase: "x" }), { createdAt: at(3590) }),
      comment(3, cpBody({ phase: "commit_complete" }), { createdAt: at(3595) }),
      comment(4, healthBody({ status: "Active" }), { createdAt: at(3596) }),
      comment(5, formatControl({ agent: "implementation-worker", session: "s1", action: "pause", by: "alice", timestamp: "2026-11-29T10:59:58Z" }), { author: "CI-Bot", createdAt: at(3598) }),
    ],
    policy,
  );

describe("renderStatusText", () => {
  it("lists needs-attention first, then each session with a liveness column, legend and how to resume", () => {
    const text = renderStatusText(buildDashboardModel(snap(), now), now, { title: "o/r#1" });
    const lines = text.split("\n");
    expect(lines[0]).toBe("checkpost status · o/r#1 · as of 2026-11-29 11:00 UTC");
    expect(lines[1]).toBe("3 agent sessions · 2 need attention · 0 anomalies");
    const attention = lines.slice(lines.indexOf("NEEDS ATTENTION") + 1, lines.indexOf("SESSION s1") - 1);
    expect(attention[1]).toMatch(/^ {2}old-one\s+s1\s+silent, last signal 1h ago\s+clone_complete\s+1h ago$/);
    expect(attention[2]).toMatch(/^ {2}implementation-worker\s+s1\s+paused by alice just now\s+commit_complete → phase_4_pr/);
    expect(text).toMatch(/implementation-worker\s+commit_complete → phase_4_pr\s+just now\s+Active \(just now\)\s+PAUSED \(active\)/);
    expect(text).toContain("Legend: active = a trusted signal within 3 × its usual interval (at least 5m)");
    expect(text).toContain("How to resume: checkpost resume --agent A --session S");
  });

  it("never writes a comment's control characters to the terminal, and colours only when asked", () => {
    const plain = renderStatusText(buildDashboardModel(snap(), now), now);
    expect(plain.includes("\u001b") || plain.includes("\u0007")).toBe(false);
    expect(plain).toContain("evil?]0;pwned??[2J");
    const coloured = renderStatusText(buildDashboardModel(snap(), now), now, { color: true });
    expect(coloured).toContain("\u001b[31msilent, last signal 1h ago\u001b[0m");
    // The only escapes are our colour codes: every ESC starts "ESC[<digits>m".
    const parts = coloured.split("\u001b");
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.slice(1).every((part) => /^\[\d+m/.test(part))).toBe(true);
  });
});

describe("renderStatusText: a newer checkpoint not used", () => {
  it("says why and which setting decided", () => {
    const seed = `[CHECKPOINT] implementation-worker\nVersion: 1.0\nPhase: pr_created\nSession: s1\nTime: 2026-11-29T10:59:00\n\nState Data:\n\`\`\`json\n{}\n\n---\n\nAutomated by CleverAgents Bot Agent: implementation-worker`;
    const s = projectComments([comment(1, cpBody({ phase: "commit_complete", id: "cp-000000000001", seq: 1, epoch: 1 }), { createdAt: at(3500) }), comment(2, seed, { createdAt: at(3590) })], policy);
    const text = renderStatusText(buildDashboardModel(s, now), now, {});
    expect(text).toContain("newer checkpoint (comment 2) not used: legacy writer without Epoch below fence 1 (CHECKPOST_LEGACY_WRITERS=fence)");
  });
});
