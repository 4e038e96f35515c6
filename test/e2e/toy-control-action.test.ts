// A control action is one file plus one registry line (issue 31, item 4). The file is
// test/helpers/controls/retry.ts; the line is the one marked below, standing a longer registry in the
// place of the real one (vi.mock replaces the module every other module reads CONTROLS from). With no
// other change, `retry` is read and written, asked for by a slash command and by a dashboard box,
// recorded by the control desk with a new fence, reported by the bot's API and a cold reader, and listed
// by the generated docs and Python table.
import { afterEach, describe, expect, it, vi } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { retry } from "../helpers/controls/retry.ts";
import type { ControlAction } from "../../src/protocol/index.ts";
import { CONTROLS, formatCheckpoint, formatControl, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { checkboxCommands, parseControlCheckboxes } from "../../src/dashboard/index.ts";
import { runCli } from "../../src/app/cli.ts";
import { controlActionsHelp } from "../../src/cli/program.ts";
import { MCP_TOOLS } from "../../src/mcp/mcp-tools.ts";
import { parseSlashCommands } from "../../src/bot/controls/slash-commands.ts";
import { generatedPython, protocolActionsTable, dashboardActionsTable } from "../../scripts/generate.ts";

vi.mock("../../src/protocol/controls/control-actions.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/protocol/controls/control-actions.ts")>();
  const { controlActionRegistry } = await import("../../src/protocol/controls/control-action-registry.ts");
  const { retry } = await import("../helpers/controls/retry.ts");
  const CONTROL_ACTIONS = [...real.CONTROL_ACTIONS, retry]; // the registry line
  return { ...real, CONTROL_ACTIONS, CONTROLS: controlActionRegistry(CONTROL_ACTIONS) };
});

const A = "implementation-worker";
// The registry's static type lists the built-in actions; the mock adds this one at run time.
const RETRY = retry.action as ControlAction;
const now = () => pythonUtcIsoformat(new Date());
const cp = (phase: string, o: { epoch?: number; seq?: number } = {}) => formatCheckpoint({ agent: A, session: "s1", phase, timestamp: now(), data: { phase }, ...o });

let w: BotWorld;
afterEach(async () => w?.close());

describe("a toy control action added by one file and one line", () => {
  it("is in the registry every part reads", () => {
    expect(CONTROLS.names).toContain("retry");
    expect(CONTROLS.directives).toContain("retry");
    expect(CONTROLS.rowBoxes.map((a) => a.action)).toEqual(["pause", "release", "hide", "retry"]);
  });

  it("is read and written as a fence: Epoch: needed, as for release", () => {
    const body = formatControl({ agent: A, session: "s1", action: RETRY, epoch: 5, by: "alice", timestamp: "2026-12-06T05:00:00Z" });
    expect(body).toContain("Action: retry");
    expect(parseComment(body)).toMatchObject({ kind: "control", control: { action: "retry", epoch: 5 } });
    expect(parseComment(body.replace("Epoch: 5\n", ""))).toMatchObject({ kind: "invalid", error: 'retry needs an "Epoch:" line' });
    expect(() => formatControl({ agent: A, session: "s1", action: RETRY, timestamp: "2026-12-06T05:00:00Z" })).toThrow(/retry needs epoch/);
  });

  it("is a slash verb, and named in the reply to an unknown one", () => {
    expect(parseSlashCommands(`/checkpost retry ${A} s1`)).toEqual([{ action: "retry", agent: A, session: "s1", line: `/checkpost retry ${A} s1` }]);
    expect(parseSlashCommands(`/checkpost retry ${A} s1 extra`)[0]).toMatchObject({ error: expect.stringMatching(/too many words/) });
    expect(parseSlashCommands("/checkpost explode x y")[0]).toMatchObject({ error: expect.stringMatching(/release, hide or retry/) });
  });

  it("is a choice of `checkpost format control`, listed in its help", async () => {
    const out: string[] = [];
    const cli = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), readStdin: async () => "", cwd: process.cwd(), env: {} };
    expect(await runCli(["format", "control", "--agent", A, "--session", "s1", "--action", "retry", "--epoch", "3", "--time", "2026-12-06T05:00:00Z"], cli)).toBe(0);
    expect(parseComment(out.join(""))).toMatchObject({ kind: "control", control: { action: "retry", epoch: 3 } });
    expect(controlActionsHelp()).toMatch(/^ {2}retry {4}Start the current step again.*\(needs --epoch\)$/m);
  });

  it("is told to agents by the MCP tools, and listed by the generated docs and the Python client's table", () => {
    const save = MCP_TOOLS.find((t) => t.name === "checkpoint_save");
    expect(save?.description).toContain('"retry" (call checkpoint_resume again and redo the current step');
    expect(protocolActionsTable()).toMatch(/\| `retry` \| `Epoch:` \| .*"kind":"retry"/);
    expect(dashboardActionsTable()).toContain("☑ Retry the current step | `/checkpost retry <agent> <session>`");
    expect(generatedPython()).toContain('"action": "retry"');
  });

  it("flows through the bot: slash command → desk → [CONTROL] with a new fence → API directive; its box ticks too", async () => {
    w = await botWorld({});
    w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
    w.forge.admin.createUser("alice");
    w.forge.admin.addCollaborator("agent", "work", "alice", "write");
    const alice = w.forge.admin.createToken("alice");
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 1, seq: 1 }));
    await w.settle();

    // The dashboard box: rendered in the agent's controls, with its own key.
    const body = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    const box = parseControlCheckboxes(body).find((b) => b.action === RETRY);
    expect(box).toMatchObject({ agent: A, session: "s1", checked: false });
    expect(body).toContain("Retry the current step");
    expect(body).toMatch(/`\/checkpost pause\|resume\|rewind\|release\|hide\|retry <agent> <session>`/);

    // The slash command: the desk records it with a fence above every epoch handed out (max + 2).
    await w.api(alice).createComment(w.repo, w.issue, `/checkpost retry ${A} s1`);
    await w.settle();
    const controls = (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => ({ c, p: parseComment(c.body) })).filter((x) => x.p.kind === "control");
    expect(controls).toHaveLength(1);
    expect(controls[0]?.c.author).toBe("checkpost-bot");
    expect(controls[0]?.p).toMatchObject({ control: { action: "retry", agent: A, session: "s1", by: "alice", epoch: 3, reason: expect.stringMatching(/^comment /) } });

    // The API tells the agent: directive "retry", and an epoch above the fence.
    const resume = (await (await w.botFetch(`/api/resume?agent=${A}&session=s1`)).json()) as Record<string, unknown>;
    expect(resume).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "retry", epoch: 3, by: "alice" } });

    // A new worker checkpoints above the fence: the directive is lifted. Then the box, ticked by a writer.
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 4, seq: 2 }));
    await w.settle();
    expect(((await (await w.botFetch(`/api/resume?agent=${A}&session=s1`)).json()) as { directive: unknown }).directive).toBeNull();
    const before = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    const after = before.replace(/^- \[ \] (<!-- checkpost:control retry )/m, "- [x] $1");
    expect(checkboxCommands(before, after)).toEqual([{ action: "retry", agent: A, session: "s1" }]);
    await w.api(alice).editIssue(w.repo, w.issue, { body: after });
    await w.settle();
    const again = (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => parseComment(c.body)).filter((p) => p.kind === "control");
    expect(again.at(-1)).toMatchObject({ control: { action: "retry", reason: "checkbox", epoch: 6 } });
  });
});
