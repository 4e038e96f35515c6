/**
 * Issue 28.3 and 28.4: every tick counts once and only when given (keyed by the edit itself; the diff is
 * always the body before the edit against the body after it; a title edit runs nothing), and a tick made
 * while the bot was down is found on restart against the last body the bot kept in its store.
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
import { WHILE_DOWN_BY } from "../../src/bot/controls/control-desk.ts";

let w: BotWorld;
let extra: Bot | undefined;
afterEach(async () => {
  await extra?.stop();
  extra = undefined;
  await w?.close();
});

const A = "implementation-worker";
const cp = (phase: string, o: { epoch?: number; seq?: number } = {}) => formatCheckpoint({ agent: A, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...o });
/** The forge's clock, moved a whole second at a time: Forgejo's times are whole seconds. */
let forgeOffset = 0;
const laterSecond = () => {
  forgeOffset += 1100;
  const at = forgeOffset;
  w.forge.admin.setClock(() => Date.now() + at);
};

async function world(opts: { webhook?: boolean; issueAuthor?: string } = {}): Promise<{ alice: string }> {
  forgeOffset = 0;
  w = await botWorld({ storeFile: join(mkdtempSync(join(tmpdir(), "cp-ticks-")), "projection.sqlite") }, opts);
  w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
  w.forge.admin.createUser("alice");
  w.forge.admin.addCollaborator("agent", "work", "alice", "write");
  const alice = w.forge.admin.createToken("alice");
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 1, seq: 1 }));
  await w.api(w.agentToken).createComment(w.repo, w.issue, cp("commit_complete", { epoch: 1, seq: 2 }));
  await settle();
  return { alice };
}

async function settle(bot: Bot = w.bot): Promise<void> {
  await w.settle();
  if (bot !== w.bot) await bot.idle();
  await bot.pollAll();
  await bot.flushDashboards();
  await w.forge.admin.idle();
  await bot.idle();
}

async function controls(action: string) {
  return (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => parseComment(c.body)).flatMap((p) => (p.kind === "control" && p.control.action === action ? [p.control] : []));
}
async function resumeApi(bot: Bot = w.bot) {
  return (await (await fetch(`${bot.url}/api/resume?agent=${A}&session=s1`, { headers: { authorization: "Bearer test-api-token-0123456789abcdef" } })).json()) as Record<string, unknown>;
}
/** Tick (or untick) the box of `action` with the API, as the web UI's edit does, on the body as it is now. */
async function tick(token: string, action: string, checked = true) {
  const issue = await w.api(token).getIssue(w.repo, w.issue);
  const lines = issue.body.split("\n").map((l) => {
    const box = parseControlCheckboxes(`<!-- checkpost:dashboard:start -->\n${l}\n<!-- checkpost:dashboard:end -->`)[0];
    return box?.action === action ? l.replace(/^- \[[ x]\]/, checked ? "- [x]" : "- [ ]") : l;
  });
  await w.api(token).editIssue(w.repo, w.issue, { body: lines.join("\n") });
}

describe("every tick counts once, and only when given (issue 28.3)", () => {
  for (const webhook of [true, false]) {
    it(`tick, untick, tick of Pause a moment apart: three records, the agent ends paused (${webhook ? "webhook" : "polling"})`, async () => {
      const { alice } = await world({ webhook });
      // All three on the page the person loaded (the bot holds its writes after a person's edit).
      for (const checked of [true, false, true]) {
        laterSecond();
        await tick(alice, "pause", checked);
        if (webhook) {
          await w.forge.admin.idle();
          await w.bot.idle();
        } else await w.bot.pollAll();
      }
      await settle();
      expect(await controls("pause")).toHaveLength(2);
      expect(await controls("unpause")).toHaveLength(1);
      expect(await resumeApi()).toMatchObject({ directive: { kind: "pause", by: webhook ? "alice" : expect.any(String) } });
    });
  }

  it("a title-only edit runs nothing, even while the page lags the bot's state", async () => {
    const { alice } = await world();
    laterSecond();
    // A person's note in the body: the bot holds its dashboard writes (docs/dashboard.md).
    const notes = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    await w.api(alice).editIssue(w.repo, w.issue, { body: `A note.\n${notes}` });
    await w.forge.admin.idle();
    await w.bot.idle();
    laterSecond();
    // A pause by slash command; the dashboard is not redrawn yet (its box still unticked on the page).
    await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
    await w.forge.admin.idle();
    await w.bot.idle();
    expect(await resumeApi()).toMatchObject({ directive: { kind: "pause" } });
    const page = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    expect(parseControlCheckboxes(page).find((b) => b.action === "pause")?.checked).toBe(false);
    laterSecond();
    await w.api(alice).editIssue(w.repo, w.issue, { title: "[Automated] CleverAgents Build Session (renamed)" });
    await w.forge.admin.idle();
    await w.bot.idle();
    await w.bot.pollAll();
    expect(await controls("unpause")).toHaveLength(0);
    expect(await resumeApi()).toMatchObject({ directive: { kind: "pause" } });
  });

  it("an edited delivery that carries the body unchanged (an upload to the issue) runs nothing", async () => {
    const { alice } = await world();
    laterSecond();
    await tick(alice, "pause");
    await settle();
    const body = (await w.api(alice).getIssue(w.repo, w.issue)).body;
    laterSecond();
    // The same body written again: Forgejo sends `edited` with changes.body.from equal to the body.
    await w.api(alice).editIssue(w.repo, w.issue, { body });
    await settle();
    expect(await controls("pause")).toHaveLength(1);
    expect(await controls("unpause")).toHaveLength(0);
  });
});

describe("no tick lost to downtime (issue 28.4)", () => {
  for (const webhook of [true, false]) {
    it(`a box ticked while the bot was down is run on restart, as made by a writer while the bot was down (${webhook ? "webhook" : "polling"})`, async () => {
      const { alice } = await world({ webhook });
      await w.bot.stop();
      laterSecond();
      await tick(alice, "pause"); // the delivery fails: nobody listens
      extra = await w.startBot(w.config, { logger: w.logger });
      await extra.reconcileAll();
      await settle(extra);
      expect(await controls("pause")).toEqual([expect.objectContaining({ by: WHILE_DOWN_BY })]);
      expect(await resumeApi(extra)).toMatchObject({ directive: { kind: "pause", by: WHILE_DOWN_BY } });
      // Once: another restart finds nothing new.
      await extra.stop();
      extra = await w.startBot(w.config, { logger: w.logger });
      await extra.reconcileAll();
      await settle(extra);
      expect(await controls("pause")).toHaveLength(1);
    });
  }

  for (const webhook of [true, false])
    it(`when the issue's poster may not command, a change made while the bot was down is shown with the command that confirms it, not run (${webhook ? "webhook" : "polling"})`, async () => {
      w = await botWorld({ storeFile: join(mkdtempSync(join(tmpdir(), "cp-ticks-")), "projection.sqlite") }, { issueAuthor: "mallory", webhook });
      w.forge.admin.addCollaborator("agent", "work", "checkpost-bot", "admin");
      await w.api(w.agentToken).createComment(w.repo, w.issue, cp("clone_complete", { epoch: 1, seq: 1 }));
      await settle();
      await w.bot.stop();
      forgeOffset = 0;
      laterSecond();
      await tick(w.malloryToken, "pause");
      extra = await w.startBot(w.config, { logger: w.logger });
      await extra.reconcileAll();
      await settle(extra);
      expect(await controls("pause")).toHaveLength(0);
      const replies = (await w.api(w.agentToken).listComments(w.repo, w.issue)).filter((c) => c.author === "checkpost-bot" && c.body.startsWith("checkpost: while the bot was down"));
      expect(replies.map((c) => c.body)).toEqual([expect.stringContaining("`/checkpost pause implementation-worker s1`")]);
      const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
      expect(parseControlCheckboxes(body).find((b) => b.action === "pause")?.checked).toBe(false);
      // The dashboard shows it under "Needs attention", with the command that confirms it, until it is given.
      const line = "the dashboard's Pause ticked for implementation-worker / s1";
      const attention = (b: string) => b.slice(b.indexOf("#### Needs attention"), b.indexOf("#### Agents by session"));
      expect(attention(body)).toContain(line);
      expect(attention(body)).toContain("comments `/checkpost pause implementation-worker s1`");
      // It outlives another restart (kept in the store) ...
      await extra.stop();
      extra = await w.startBot(w.config, { logger: w.logger });
      await extra.reconcileAll();
      await settle(extra);
      expect(attention((await w.api(w.agentToken).getIssue(w.repo, w.issue)).body)).toContain(line);
      // ... and goes once a person with write access gives the command.
      w.forge.admin.createUser("alice");
      w.forge.admin.addCollaborator("agent", "work", "alice", "write");
      const alice = w.forge.admin.createToken("alice");
      await w.api(alice).createComment(w.repo, w.issue, "/checkpost pause implementation-worker s1");
      await settle(extra);
      expect(await controls("pause")).toEqual([expect.objectContaining({ by: "alice" })]);
      const after = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
      expect(after).not.toContain(line);
      expect(attention(after)).toContain("paused by alice");
    });
});
