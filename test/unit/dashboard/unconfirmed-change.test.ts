// Issue 28.4: a box change made while the bot was down, not run because the poster may not command.
import { describe, expect, it } from "vitest";
import { projectComments } from "../../../src/projection/index.ts";
import { confirmCommand, renderDashboard } from "../../../src/dashboard/index.ts";
import { T0, comment, cpBody, policy } from "../projection/build-comments.ts";

const now = new Date(T0 + 60_000);
const snap = () => projectComments([comment(1, cpBody({ phase: "clone_complete" }), { author: "worker" })], policy);
const attention = (md: string) => md.slice(md.indexOf("#### Needs attention"), md.indexOf("#### Agents by session"));

describe("unconfirmed box changes", () => {
  it("are shown under Needs attention with the exact command that confirms each", () => {
    const md = renderDashboard(snap(), now, {
      unconfirmed: [
        { action: "unpause", agent: "implementation-worker", session: "s1" },
        { action: "rewind", agent: "implementation-worker", session: "s1", target: 12 },
      ],
    });
    expect(attention(md)).toContain("the dashboard's Pause unticked for implementation-worker / s1");
    expect(attention(md)).toContain("comments `/checkpost resume implementation-worker s1`");
    expect(attention(md)).toContain("the dashboard's Rewind to comment 12 ticked for implementation-worker / s1");
    expect(attention(md)).toContain("comments `/checkpost rewind implementation-worker s1 12`");
    expect(md).not.toContain("_Nothing: every agent is signalling");
  });

  it("none: the line is absent", () => {
    expect(renderDashboard(snap(), now)).not.toContain("Not run, needs confirming");
  });

  it("a name with a space, a backtick or a marker stays one safe code span", () => {
    expect(confirmCommand({ action: "pause", agent: "a b", session: "s`<!-- x -->" })).toBe('/checkpost pause "a b" "s ＜!-- x -->"');
  });
});
