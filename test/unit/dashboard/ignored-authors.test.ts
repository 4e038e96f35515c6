// Issue 33, item 1: an agent outside the trusted list has no row; every reader names it and the setting.
import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import { buildDashboardModel, ignoredAuthors, ignoredAuthorsText, renderDashboard, renderStatusText } from "../../../src/dashboard/index.ts";
import { T0, comment, cpBody, policy } from "../projection/build-comments.ts";

const now = new Date(T0 + 60_000);
// An agent with its own account ("agent-1"), not listed: its first save.
const firstSave = () => projectComments([comment(1, cpBody({ agent: "implementation-worker", phase: "clone_complete" }), { author: "agent-1" })], policy);

describe("ignored authors", () => {
  it("are named with the exact setting that admits them, CHECKPOST_TRUSTED_AUTHORS as the reader has it", () => {
    const found = ignoredAuthors(firstSave());
    expect(found).toEqual({ authors: ["agent-1"], more: 0 });
    expect(ignoredAuthorsText(found, ["worker"])).toBe(
      'checkpoints by agent-1 are ignored: not a trusted author. If it is one of your agents, set CHECKPOST_TRUSTED_AUTHORS=worker,agent-1 on the bot and on every agent (docs/security.md, "Trusted authors"); if not, delete its comments.',
    );
    expect(ignoredAuthorsText(found, [])).toContain("set CHECKPOST_TRUSTED_AUTHORS=agent-1 on the bot");
    expect(ignoredAuthorsText({ authors: [], more: 0 }, [])).toBeNull();
  });

  it("the dashboard shows the sentence under Needs attention and counts the author in the header; status says the same", () => {
    const snap = firstSave();
    const md = renderDashboard(snap, now, { trustedAuthors: ["worker"] });
    expect(md).toContain("0 agent sessions · 0 need attention · 1 anomaly · 1 ignored author");
    expect(md).toContain("⚠️ **Ignored authors:** checkpoints by agent-1 are ignored");
    expect(md).toContain("set `CHECKPOST_TRUSTED_AUTHORS=worker,agent-1` on the bot");
    expect(md).not.toContain("_Nothing: every agent is signalling");
    const model = buildDashboardModel(snap, now, { trustedAuthors: ["worker"] });
    const text = renderStatusText(model, now);
    expect(text).toContain(`ignored authors: ${ignoredAuthorsText(model.ignored, ["worker"])}`);
    expect(text).not.toMatch(/NEEDS ATTENTION\n {2}nothing/);
  });

  it("a trusted agent's save leaves nobody ignored", () => {
    const snap = projectComments([comment(1, cpBody({ phase: "clone_complete" }), { author: "worker" })], policy);
    expect(buildDashboardModel(snap, now).ignored).toEqual({ authors: [], more: 0 });
    expect(renderDashboard(snap, now)).not.toContain("Ignored authors");
  });
});
