import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { parseControlCheckboxes } from "../../src/dashboard/index.ts";
import { runCli } from "../../src/app/cli.ts";

let w: BotWorld;
afterEach(async () => w?.close());

const A = "implementation-worker";
const cp = (phase: string, o: { epoch?: number; seq?: number } = {}) => formatCheckpoint({ agent: A, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...o });

/** The bot needs repo admin to read others' permissions (Forgejo answers 403 otherwise); alice writes, mallory only reads. */
async function world(opts: { issueAuthor?: string } = {}): Promise<{ alice: string }> {
  w = await botWorld({}, opts);
  w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
  w.forge.admin.createUser("alice");
  w.forge.admin.addCollaborator("agent", "work", "alice", "write");
  const alice = w.forge.admin.createToken("alice");
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 1, seq: 1 }));
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("commit_complete", { epoch: 1, seq: 2 }));
  await w.settle();
  return { alice };
}

async function comments() {
  return w.api(w.agentToken).listComments(w.repo, w.issue);
}
async function controls() {
  return (await comments()).map((c) => ({ c, p: parseComment(c.body) })).filter((x) => x.p.kind === "control");
}
async function say(token: string, body: string) {
  await w.api(token).createComment(w.repo, w.issue, body);
  await w.settle();
}
async function resumeApi() {
  return (await (await w.botFetch(`/api/resume?agent=${A}&session=s1`)).json()) as Record<string, unknown>;
}
async function coldResume() {
  const out: string[] = [];
  const env = {
    FORGEJO_URL: w.forge.url,
    FORGEJO_TOKEN: w.agentToken,
    FORGEJO_REPOSITORY: "agent/work",
    CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
    CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "cp-")),
  };
  expect(await runCli(["resume", "--agent", A, "--session", "s1"], { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", cwd: process.cwd(), env })).toBe(0);
  return JSON.parse(out.join("")) as Record<string, unknown>;
}
async function metric(action: string, result: string): Promise<number> {
  const text = await (await w.botFetch("/metrics")).text();
  const m = new RegExp(`checkpost_controls_total\\{action="${action}",result="${result}"\\} (\\d+)`).exec(text);
  return m ? Number(m[1]) : 0;
}
/** Tick (or untick) the box of `action` in the issue body as `token`'s user, the way the web UI does. */
async function tick(token: string, action: string, checked = true, target?: number) {
  const issue = await w.api(token).getIssue(w.repo, w.issue);
  const lines = issue.body.split("\n").map((l) => {
    const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${l}\n<!-- checkpost:dashboard:end -->`)[0];
    if (!box || box.action !== action || (target !== undefined && box.target !== target)) return l;
    return l.replace(/^- \[[ x]\]/, checked ? "- [x]" : "- [ ]");
  });
  await w.api(token).editIssue(w.repo, w.issue, { body: lines.join("\n") });
  await w.settle();
}

describe("controls: slash commands", () => {
  it.each([
    ["pause", "/checkpost pause implementation-worker s1"],
    ["release", "/checkpost release implementation-worker s1"],
    ["hide", "/checkpost hide implementation-worker s1"],
  ])("%s: a writer's command is recorded as [CONTROL]; a non-writer's is refused with a reply and counted", async (action, line) => {
    const { alice } = await world();
    await say(w.malloryToken, line);
    expect(await controls()).toHaveLength(0);
    expect((await comments()).at(-1)?.body).toMatch(/only users with write access/);
    expect(await metric(action, "refused")).toBe(1);

    await say(alice, line);
    const recorded = await controls();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.c.author).toBe("checkpost-bot");
    expect(recorded[0]?.p).toMatchObject({ control: { action, agent: A, session: "s1", by: "alice" } });
    expect(await metric(action, "accepted")).toBe(1);
  });

  it("pause reaches the agent: /api/resume and a cold `checkpost resume` both return the directive; resume unpauses", async () => {
    const { alice } = await world();
    await say(alice, "/checkpost pause implementation-worker s1");
    expect(await resumeApi()).toMatchObject({ phase: "commit_complete", directive: { kind: "pause", by: "alice" } });
    expect(await coldResume()).toMatchObject({ phase: "commit_complete", directive: { kind: "pause", by: "alice" } });
    await say(alice, "/checkpost resume implementation-worker s1");
    expect((await resumeApi()).directive).toBeNull();
    expect((await coldResume()).directive).toBeNull();
  });

  it("rewind: back to the earlier checkpoint with a new epoch; the old worker's next save is a zombie", async () => {
    const { alice } = await world();
    const first = (await comments())[0];
    await say(w.malloryToken, `/checkpost rewind implementation-worker s1 ${first?.id}`);
    expect(await controls()).toHaveLength(0);
    expect(await metric("rewind", "refused")).toBe(1);
    await say(alice, `/checkpost rewind implementation-worker s1 ${first?.id}`);
    expect((await controls())[0]?.p).toMatchObject({ control: { action: "rewind", target: first?.id, epoch: 3 } });
    expect(await resumeApi()).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "rewind", epoch: 3 } });
    // The old worker (epoch 1) saves again: fenced off, the resume point does not move.
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("pr_created", { epoch: 1, seq: 3 }));
    await w.settle();
    expect(await resumeApi()).toMatchObject({ phase: "clone_complete" });
    expect(await coldResume()).toMatchObject({ phase: "clone_complete", epoch: 4, directive: { kind: "rewind" } });
    const agents = (await (await w.botFetch("/api/agents")).json()) as { anomalies: { kind: string }[] };
    expect(agents.anomalies.map((a) => a.kind)).toContain("zombie");
  });

  it("answers a command it cannot act on, and never acts on its own comments", async () => {
    const { alice } = await world();
    await say(alice, "/checkpost pause nobody s1\n/checkpost rewind implementation-worker s1 999999\n/checkpost explode x y");
    expect(await controls()).toHaveLength(0);
    const replies = (await comments()).filter((c) => c.author === "checkpost-bot").map((c) => c.body);
    expect(replies.some((b) => b.includes("no agent nobody"))).toBe(true);
    expect(replies.some((b) => b.includes("earlier trusted checkpoints"))).toBe(true);
    expect(replies.some((b) => b.includes("not understood"))).toBe(true);
  });

  it("a reply that quotes a command never carries a raw chain marker (issue 28.6)", async () => {
    const { alice } = await world();
    await say(alice, "/checkpost pause <!-- checkpost:continued-in #99 -->\n/checkpost rewind implementation-worker s1 <!--x-->");
    const replies = (await comments()).filter((c) => c.author === "checkpost-bot" && c.body.startsWith("checkpost:")).map((c) => c.body);
    expect(replies.length).toBeGreaterThan(0);
    for (const b of replies) expect(b).not.toContain("<!--");
  });
});

describe("controls: dashboard checkboxes", () => {
  it("a writer ticks pause: [CONTROL] recorded, box stays ticked; unticking unpauses", async () => {
    const { alice } = await world();
    await tick(alice, "pause");
    expect((await controls()).map((x) => x.p.kind === "control" && x.p.control.action)).toEqual(["pause"]);
    expect((await resumeApi()).directive).toMatchObject({ kind: "pause", by: "alice" });
    let body = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    expect(parseControlCheckboxes(body).find((b) => b.action === "pause")?.checked).toBe(true);
    await tick(alice, "pause", false);
    expect((await resumeApi()).directive).toBeNull();
    body = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    expect(parseControlCheckboxes(body).find((b) => b.action === "pause")?.checked).toBe(false);
  });

  it("a non-writer's tick is reverted with a short reply and counted; nothing is recorded", async () => {
    // Forgejo lets an issue's poster edit its body without write access: mallory opened the session issue.
    await world({ issueAuthor: "mallory" });
    await tick(w.malloryToken, "pause");
    expect(await controls()).toHaveLength(0);
    const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
    expect(parseControlCheckboxes(body).find((b) => b.action === "pause")?.checked).toBe(false);
    expect((await comments()).at(-1)?.body).toMatch(/change was reverted/);
    expect(await metric("pause", "refused")).toBe(1);
  });

  it("rewind and hide boxes act once and come back unticked", async () => {
    const { alice } = await world();
    const first = (await comments())[0]?.id as number;
    await tick(alice, "rewind", true, first);
    expect(await resumeApi()).toMatchObject({ phase: "clone_complete", directive: { kind: "rewind" } });
    await tick(alice, "hide");
    const body = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    expect(body).toContain("1 hidden");
    expect(parseControlCheckboxes(body)).toEqual([]); // the hidden row's details are gone with it
    expect((await controls()).map((x) => x.p.kind === "control" && x.p.control.action)).toEqual(["rewind", "hide"]);
  });
});
