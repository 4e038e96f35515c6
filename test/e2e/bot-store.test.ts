import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Bot } from "../../src/bot/create-bot.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { projectComments } from "../../src/projection/index.ts";
import { toCommentRecord } from "../../src/session-client/index.ts";
import { botWorld, SECRET } from "../helpers/bot-world.ts";
import { runCli } from "../../src/app/cli.ts";
import { createSqliteProjectionStore } from "../../src/bot-state/index.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
const extra: Bot[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const b of extra.splice(0)) await b.stop();
  await w?.close();
  w = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const storeFile = () => {
  const d = mkdtempSync(join(tmpdir(), "checkpost-bot-store-"));
  dirs.push(d);
  return join(d, "bot", "projection.sqlite");
};
const cp = (phase: string, session = "s1") => formatCheckpoint({ agent: "implementation-worker", session, phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase } as never });
const health = (session = "s1") => formatHealth({ agent: "implementation-worker", session, timestamp: pythonUtcIsoformat(new Date()), metrics: { ok: 1 } as never });

/** A fetch that records every request the bot makes to Forgejo. */
function recordingFetch(log: URL[]): typeof fetch {
  return (input, init) => {
    log.push(new URL(input instanceof Request ? input.url : String(input)));
    return fetch(input, init);
  };
}

describe("the bot's durable store", () => {
  it("continues after a restart from the stored watermark: one incremental read, never a full one", async () => {
    const world = (w = await botWorld({ storeFile: storeFile() }));
    const api = world.api(world.agentToken);
    for (let i = 0; i < 20; i++) await api.createComment(world.repo, world.issue, i % 4 === 0 ? cp(`phase_${i}`) : i % 4 === 1 ? health() : `chatter ${i}`);
    await world.settle();
    const before = world.bot.tracker(world.repo, world.issue)?.projection.snapshot();
    const listed = await api.listComments(world.repo, world.issue);
    // The 20 posted and the bot's own resume index comment: every comment of the issue was read.
    expect(listed.filter((c) => c.author === "checkpost-bot")).toHaveLength(1);
    expect(before?.comments).toBe(20 + 1);
    await world.bot.stop();

    // While the bot is down: a new checkpoint (its delivery fails) and a deletion of an agent's comment.
    const missed = await api.createComment(world.repo, world.issue, cp("while_down"));
    const agents = listed.filter((c) => c.author === "agent");
    await api.deleteComment(world.repo, (agents[1] as { id: number }).id);

    const requests: URL[] = [];
    const bot = await world.startBot(world.config, { logger: world.logger, fetch: recordingFetch(requests) });
    extra.push(bot);
    const commentReads = requests.filter((u) => /\/issues\/\d+\/comments$/.test(u.pathname));
    expect(commentReads).toHaveLength(1);
    expect(commentReads[0]?.searchParams.get("since")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(world.logs.some((l) => l.includes('"from":"store"'))).toBe(true);

    const t = bot.tracker(world.repo, world.issue);
    expect(t?.projection.latest("implementation-worker", "s1")?.commentId).toBe(missed.id);
    // The incremental read cannot see a deletion: that is the reconcile's job, and after it the state equals a full rebuild.
    await bot.reconcileAll();
    const rebuilt = projectComments((await api.listComments(world.repo, world.issue)).map(toCommentRecord), { trustedAuthors: new Set(["agent", "checkpost-bot"]) });
    expect(t?.projection.snapshot()).toEqual(rebuilt);
    expect(await bot.store.entry(`agent/work#${world.issue}`, "implementation-worker", "s1")).toBeTruthy();
  });

  it("holds only the newest records: a restart takes the folded rest from the store, and deleting folded-away checkpoints reads them back", async () => {
    const file = storeFile();
    const world = (w = await botWorld({ storeFile: file }));
    const api = world.api(world.agentToken);
    const posted: number[] = [];
    for (let i = 0; i < 60; i++) posted.push((await api.createComment(world.repo, world.issue, i % 3 === 2 ? health() : cp(`phase_${i}`))).id);
    await world.settle();
    await world.bot.stop();
    const key = `agent/work#${world.issue}`;
    const peek = createSqliteProjectionStore(file);
    const state = JSON.parse((await peek.projectionState(key)) ?? "null") as { entries: { cold: unknown[] }[] } | null;
    await peek.close();
    // 60 records of one agent+session: all but the newest few were folded away and their versions stored.
    expect(state?.entries).toHaveLength(1);
    expect(state?.entries[0]?.cold.length).toBeGreaterThanOrEqual(60 - 32);

    const bot = await world.startBot(world.config, { logger: world.logger });
    extra.push(bot);
    const t = bot.tracker(world.repo, world.issue);
    const trust = { trustedAuthors: new Set(["agent", "checkpost-bot"]) };
    const rebuild = async () => projectComments((await api.listComments(world.repo, world.issue)).map(toCommentRecord), trust);
    expect(t?.projection.snapshot()).toEqual(await rebuild());
    // Delete the 30 newest comments: the resume point falls back to a checkpoint the bot no longer held in memory.
    for (const id of posted.slice(-30)) await api.deleteComment(world.repo, id);
    // This bot gets no webhooks (it listens elsewhere): the reconcile sees the deletions.
    await bot.reconcileAll();
    expect(t?.projection.historyNeeded()).toEqual([]);
    expect(t?.projection.latest("implementation-worker", "s1")?.data).toEqual({ phase: "phase_28" });
    const after = t?.projection.snapshot();
    const { anomalies, ...rest } = await rebuild();
    expect(after).toMatchObject(rest);
    // A live projection also says which checkpoints were deleted (a listing cannot): every deleted one, read back from the store.
    const deletedCheckpoints = posted.slice(-30).filter((_, i) => (30 + i) % 3 !== 2);
    expect(after?.anomalies.filter((a) => a.kind === "deleted-checkpoint").map((a) => a.commentId)).toEqual(deletedCheckpoints);
    expect(after?.anomalies.filter((a) => a.kind !== "deleted-checkpoint")).toEqual(anomalies);
  });

  it("rebuilds from Forgejo when the store holds nothing (first start)", async () => {
    const world = (w = await botWorld({ storeFile: storeFile() }));
    await world.api(world.agentToken).createComment(world.repo, world.issue, cp("clone_complete"));
    await world.settle();
    const requests: URL[] = [];
    const fresh = await world.startBot({ ...world.config, storeFile: storeFile() }, { logger: world.logger, fetch: recordingFetch(requests) });
    extra.push(fresh);
    const reads = requests.filter((u) => /\/issues\/\d+\/comments$/.test(u.pathname));
    // One full read; when the comment was stamped in the second that read was sent, one `since` read
    // more, a second later, so the first resume index can say it is complete past it (issue 32).
    expect(reads[0]?.searchParams.get("since")).toBeNull();
    expect(reads.slice(1).every((u) => u.searchParams.get("since") !== null)).toBe(true);
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(fresh.tracker(world.repo, world.issue)?.projection.latest("implementation-worker", "s1")?.phase).toBe("clone_complete");
  });

  it("two bot instances on one store: one writes the dashboard, the other takes over when it stops", async () => {
    const file = storeFile();
    const world = (w = await botWorld({ storeFile: file }));
    const second = await world.startBot(world.config, { logger: world.logger });
    extra.push(second);
    const api = world.api(world.agentToken);
    await api.createHook(world.repo, {
      type: "forgejo",
      active: true,
      events: ["issues", "issue_comment"],
      config: { url: `${second.url}${world.config.webhookPath}`, content_type: "json", secret: SECRET },
    });
    await api.createComment(world.repo, world.issue, cp("clone_complete"));
    await world.settle();
    await second.idle();
    await second.flushDashboards();
    const a = world.bot.tracker(world.repo, world.issue);
    const b = second.tracker(world.repo, world.issue);
    // Both fold every delivery (they share the store: the second copy of each is a no-op there) …
    expect(b?.projection.latest("implementation-worker", "s1")?.phase).toBe("clone_complete");
    // … but only the lease holder writes.
    expect(a?.dashboard.writes).toBeGreaterThan(0);
    expect(b?.dashboard.writes).toBe(0);
    expect(b?.lease.current()).toBeNull();

    await world.bot.stop(); // releases its lease
    await second.renewLeases();
    expect(b?.lease.current()).not.toBeNull();
    await api.createComment(world.repo, world.issue, cp("commit_complete"));
    await world.forge.admin.idle();
    await second.idle();
    await second.flushDashboards();
    expect(b?.dashboard.writes).toBeGreaterThan(0);
    const body = (await api.getIssue(world.repo, world.issue)).body;
    expect(body).toContain("commit\\_complete");
  });

  it("`checkpost rebuild` refills the store from Forgejo, and refuses while a bot holds the lease", async () => {
    const file = storeFile();
    const world = (w = await botWorld({ storeFile: file }));
    const api = world.api(world.agentToken);
    await api.createComment(world.repo, world.issue, cp("clone_complete"));
    await world.settle();
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      readStdin: async () => "",
      env: { FORGEJO_URL: world.forge.url, FORGEJO_TOKEN: world.agentToken, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_ISSUE: String(world.issue), CHECKPOST_STORE_FILE: file },
      cwd: process.cwd(),
    };
    expect(await runCli(["rebuild"], io)).toBe(1);
    expect(err.join("")).toContain("stop the bot first");

    await world.bot.stop();
    await api.createComment(world.repo, world.issue, cp("commit_complete")); // missed by the stopped bot
    expect(await runCli(["rebuild"], io)).toBe(0);
    const printed = JSON.parse(out.join("")) as { comments: number };
    expect(printed.comments).toBe((await api.listComments(world.repo, world.issue)).length);
    const store = createSqliteProjectionStore(file);
    expect((await store.comments(`agent/work#${world.issue}`)).map((c) => c.id)).toEqual((await api.listComments(world.repo, world.issue)).map((c) => c.id));
    expect(await store.entries(`agent/work#${world.issue}`)).toEqual([]); // derived again by the bot, with its own trust policy
    await store.close();

    const bot = await world.startBot(world.config, { logger: world.logger });
    extra.push(bot);
    expect(bot.tracker(world.repo, world.issue)?.projection.latest("implementation-worker", "s1")?.phase).toBe("commit_complete");
  });
});
