/**
 * Issue 18.3 and 19.3: people's commands run at most once, ever, whichever path brings them
 * (webhook, redelivery, a captured delivery replayed, a poll, a reconcile, a restart), and the
 * bot polling alone (no webhook) handles slash commands and dashboard ticks.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { parseControlCheckboxes } from "../../src/dashboard/index.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { SessionStore } from "../../src/session-client/index.ts";

let w: BotWorld;
let extra: Bot | undefined;
afterEach(async () => {
  await extra?.stop();
  extra = undefined;
  await w?.close();
});

const A = "implementation-worker";
const cp = (phase: string, o: { epoch?: number; seq?: number } = {}) => formatCheckpoint({ agent: A, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...o });

async function world(opts: { webhook?: boolean } = {}): Promise<{ alice: string }> {
  w = await botWorld({ storeFile: join(mkdtempSync(join(tmpdir(), "cp-once-")), "projection.sqlite") }, opts);
  w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
  w.forge.admin.createUser("alice");
  w.forge.admin.addCollaborator("agent", "work", "alice", "write");
  const alice = w.forge.admin.createToken("alice");
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 1, seq: 1 }));
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("commit_complete", { epoch: 1, seq: 2 }));
  await settle();
  return { alice };
}

/** Webhooks: let deliveries land. Polling only: one poll, then the dashboard. */
async function settle(bot: Bot = w.bot): Promise<void> {
  await w.settle();
  if (bot !== w.bot) await bot.idle();
  await bot.pollAll();
  await bot.flushDashboards();
}

async function controls(action?: string) {
  const all = (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => ({ c, p: parseComment(c.body) })).filter((x) => x.p.kind === "control");
  return action ? all.filter((x) => x.p.kind === "control" && x.p.control.action === action) : all;
}
async function resumeApi(bot: Bot = w.bot) {
  return (await (await fetch(`${bot.url}/api/resume?agent=${A}&session=s1`, { headers: { authorization: "Bearer test-api-token-0123456789abcdef" } })).json()) as Record<string, unknown>;
}
/** Tick (or untick) the box of `action` with the API, as the web UI's edit does. */
async function tick(token: string, action: string, checked = true) {
  const issue = await w.api(token).getIssue(w.repo, w.issue);
  const lines = issue.body.split("\n").map((l) => {
    const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${l}\n<!-- checkpost:dashboard:end -->`)[0];
    return box?.action === action ? l.replace(/^- \[[ x]\]/, checked ? "- [x]" : "- [ ]") : l;
  });
  await w.api(token).editIssue(w.repo, w.issue, { body: lines.join("\n") });
}
/** Send a captured delivery again, byte for byte, with its signature and delivery id. */
async function replay(match: (d: { event: string; action: string; body: string }) => boolean, times = 3): Promise<void> {
  const d = w.forge.admin.deliveries().filter(match).at(-1);
  expect(d, "the delivery to replay").toBeDefined();
  for (let i = 0; i < times; i++) {
    const r = await fetch(`${w.bot.url}${w.config.webhookPath}`, { method: "POST", headers: d!.requestHeaders, body: d!.body });
    expect(r.status).toBeLessThan(300);
  }
  await w.bot.idle();
  await w.bot.flushDashboards();
}

describe("a command runs at most once, ever", () => {
  it("a replayed signed slash-command delivery runs nothing again: no second pause after a resume, no second fence", async () => {
    const { alice } = await world();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
    await settle();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost resume implementation-worker s1");
    await settle();
    expect((await resumeApi()).directive).toBeNull();
    await replay((d) => d.event === "issue_comment" && d.body.includes("/checkpost pause"));
    expect(await controls("pause")).toHaveLength(1);
    expect((await resumeApi()).directive).toBeNull();

    await w.api(alice).createComment(w.repo, w.issue, "/checkpost release implementation-worker s1");
    await settle();
    expect(await resumeApi()).toMatchObject({ epoch: 4, directive: { kind: "release", epoch: 3 } });
    await replay((d) => d.event === "issue_comment" && d.body.includes("/checkpost release"));
    expect(await controls("release")).toHaveLength(1);
    // The fence stayed at 3: a worker taking over at epoch 4 is not a zombie.
    expect(await resumeApi()).toMatchObject({ epoch: 4, directive: { kind: "release", epoch: 3 } });
  });

  it("a release fences a worker whose resume wrote nothing (issue 28.5: no epoch tie)", async () => {
    const { alice } = await world();
    const worker = new SessionStore({ api: w.api(w.agentToken), repo: w.repo, issue: w.issue, trustedAuthors: ["agent", "checkpost-bot"] });
    const held = await worker.resume(A, "s1", null); // writes nothing: the highest written epoch + 1
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost release implementation-worker s1");
    await settle();
    const [release] = await controls("release");
    expect(release?.p.kind === "control" && release.p.control.epoch).toBeGreaterThan(held.epoch);
    const late = await worker.save({ agent: A, session: "s1", phase: "pr_created", data: {} }, { checkDirective: true });
    expect(late.checkpoint.epoch).toBe(held.epoch);
    expect(late.fenced).toBe(true);
    await settle();
    expect(await resumeApi()).toMatchObject({ phase: "commit_complete", directive: { kind: "release" } });
  });

  it("a replayed tick delivery runs nothing again", async () => {
    const { alice } = await world();
    await tick(alice, "pause");
    await settle();
    expect(await controls("pause")).toHaveLength(1);
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost resume implementation-worker s1");
    await settle();
    // alice's own edit (the bot's later writes also show the box ticked, but the bot ignores its own edits).
    await replay((d) => d.event === "issues" && d.action === "edited" && (JSON.parse(d.body) as { sender: { login: string } }).sender.login === "alice");
    expect(await controls("pause")).toHaveLength(1);
    expect((await resumeApi()).directive).toBeNull();
  });

  it("a restarted bot on the same store, reconciling everything, runs no command again", async () => {
    const { alice } = await world();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost release implementation-worker s1");
    await settle();
    expect(await controls("release")).toHaveLength(1);
    await w.bot.stop();
    extra = await w.startBot(w.config, { logger: w.logger });
    await extra.reconcileAll();
    await extra.pollAll();
    await extra.idle();
    expect(await controls("release")).toHaveLength(1);
  });

  it("a bot reading an issue for the first time runs only recent commands, not history", async () => {
    const { alice } = await world({ webhook: false });
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost hide implementation-worker s1");
    await w.bot.stop();
    // A new store an hour later: the hide is history (COMMAND_GRACE_MS), claimed as seen, never run.
    const later = { ...w.config, storeFile: join(mkdtempSync(join(tmpdir(), "cp-once-")), "projection.sqlite") };
    extra = await w.startBot(later, { logger: w.logger, now: () => new Date(Date.now() + 3_600_000) });
    await extra.pollAll();
    expect(await controls("hide")).toHaveLength(0);
  });
});

describe("controls with the bot polling only (no webhook)", () => {
  it("a slash command is handled by the poll, once, however often it is read again", async () => {
    const { alice } = await world({ webhook: false });
    expect(w.forge.admin.deliveries()).toHaveLength(0);
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
    await w.bot.pollAll();
    expect(await controls("pause")).toHaveLength(1);
    expect(await resumeApi()).toMatchObject({ directive: { kind: "pause", by: "alice" } });
    await w.bot.pollAll();
    await w.bot.reconcileAll();
    expect(await controls("pause")).toHaveLength(1);
  });

  it("a tick is handled by the poll: pause, then unticking unpauses; a re-read acts once", async () => {
    const { alice } = await world({ webhook: false });
    await w.bot.flushDashboards();
    await tick(alice, "pause");
    await w.bot.pollAll();
    expect(await controls("pause")).toHaveLength(1);
    expect(await resumeApi()).toMatchObject({ directive: { kind: "pause" } });
    await w.bot.pollAll();
    await w.bot.reconcileAll();
    expect(await controls("pause")).toHaveLength(1);
    await tick(alice, "pause", false);
    await w.bot.pollAll();
    expect(await controls("unpause")).toHaveLength(1);
    expect((await resumeApi()).directive).toBeNull();
  });

  it("a tick made between two polls is not lost when the bot writes the dashboard first", async () => {
    const { alice } = await world({ webhook: false });
    await w.bot.flushDashboards();
    await tick(alice, "pause");
    // An agent saves; the bot's next dashboard write reads the body first and sees the tick.
    await w.api(w.agentToken).createComment(w.repo, w.issue, cp("pr_created", { epoch: 1, seq: 3 }));
    await w.bot.pollAll();
    await w.bot.flushDashboards();
    expect(await controls("pause")).toHaveLength(1);
    const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
    expect(parseControlCheckboxes(body).find((b) => b.action === "pause")?.checked).toBe(true);
  });
});

describe("control records are immutable in effect (issue 19.7)", () => {
  async function coldDirective(): Promise<unknown> {
    const { runCli } = await import("../../src/app/cli.ts");
    const out: string[] = [];
    const env = {
      FORGEJO_URL: w.forge.url,
      FORGEJO_TOKEN: w.agentToken,
      FORGEJO_REPOSITORY: "agent/work",
      CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "cp-")),
    };
    expect(await runCli(["resume", "--agent", A, "--session", "s1"], { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", cwd: process.cwd(), env })).toBe(0);
    return (JSON.parse(out.join("")) as { directive: unknown }).directive;
  }

  it("a writer's one-space edit of the bot's pause changes nothing: bot and cold reader still say pause; the edit is an anomaly", async () => {
    const { alice } = await world();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
    await settle();
    const [pause] = await controls("pause");
    await w.api(w.agentToken).editComment(w.repo, pause!.c.id, `${pause!.c.body} `);
    await settle();
    expect(await resumeApi()).toMatchObject({ directive: { kind: "pause", by: "alice" } });
    expect(await coldDirective()).toMatchObject({ kind: "pause", by: "alice" });
    const agents = (await (await fetch(`${w.bot.url}/api/agents`, { headers: { authorization: "Bearer test-api-token-0123456789abcdef" } })).json()) as {
      anomalies: { kind: string; commentId: number }[];
    };
    expect(agents.anomalies).toContainEqual(expect.objectContaining({ kind: "edited", commentId: pause!.c.id }));
    // Restored once, however often it is read again.
    await w.bot.reconcileAll();
    expect(await controls("pause")).toHaveLength(2);
  });

  it("deleting the bot's release lowers no fence: the epoch stays and the directive holds", async () => {
    const { alice } = await world();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost release implementation-worker s1");
    await settle();
    expect(await resumeApi()).toMatchObject({ epoch: 4, directive: { kind: "release", epoch: 3 } });
    const [release] = await controls("release");
    await w.api(w.agentToken).deleteComment(w.repo, release!.c.id);
    await settle();
    expect(await resumeApi()).toMatchObject({ epoch: 4, directive: { kind: "release", epoch: 3 } });
    expect(await coldDirective()).toMatchObject({ kind: "release", epoch: 3 });
  });

  it("deleting the bot's unpause does not bring the pause back", async () => {
    const { alice } = await world();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
    await settle();
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost resume implementation-worker s1");
    await settle();
    const [unpause] = await controls("unpause");
    await w.api(w.agentToken).deleteComment(w.repo, unpause!.c.id);
    await settle();
    expect((await resumeApi()).directive).toBeNull();
    expect(await coldDirective()).toBeNull();
  });
});
