import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { itLacks, itNeeds } from "../helpers/host-capabilities.ts";
import { botConfigFromEnv } from "../../src/config/bot-env.ts";
import { BotEnvSchema } from "../../src/config/bot-env.ts";
import { parseEnv } from "../../src/config/env.ts";
import { readArchive } from "../../src/compaction/compact-health.ts";
import { runCli } from "../../src/app/cli.ts";
import { formatCheckpoint, formatHealth, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { RESUME_INDEX_COMMENT_HEAD } from "../../src/bot/upkeep/dashboard-writer.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const cp = (phase: string, session: string) => formatCheckpoint({ agent: "implementation-worker", session, phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase } });
const health = (session: string, n: number) => formatHealth({ agent: "implementation-worker", session, timestamp: pythonUtcIsoformat(new Date()), metrics: { n } });
const ASSETS = "POST /repos/{owner}/{repo}/issues/{index}/assets";

async function compactionWorld() {
  const world = (w = await botWorld({ healthRetentionMs: 60_000 }));
  const api = world.api(world.agentToken);
  for (let i = 1; i <= 5; i++) await api.createComment(world.repo, world.issue, health("s1", i));
  await api.createComment(world.repo, world.issue, cp("clone_complete", "s1"));
  await api.createComment(world.repo, world.issue, cp("commit_complete", "s1"));
  for (let i = 1; i <= 2; i++) await api.createComment(world.repo, world.issue, health("s2", i));
  await world.api(world.malloryToken).createComment(world.repo, world.issue, health("s1", 99));
  await world.settle();
  world.advance(120_000); // the bot's clock: every health signal is now older than the retention
  const t = world.bot.tracker(world.repo, world.issue);
  if (!t) throw new Error("no tracker");
  return { world, api, t };
}

/** The bot's own resume index comment: not a health signal, never compacted. */
const isIndexComment = (c: { author: string; body: string }) => c.author === "checkpost-bot" && c.body.startsWith(RESUME_INDEX_COMMENT_HEAD);

const kinds = (bodies: string[]) =>
  bodies
    .map((b) => parseComment(b))
    .map((p) => (p.kind === "health" ? `health ${p.health.session} ${JSON.stringify(p.health.metrics)}` : p.kind === "checkpoint" ? `checkpoint ${p.checkpoint.phase}` : p.kind));

describe("health compaction", () => {
  itNeeds("attachments", "--dry-run says what would go and changes nothing; a failed archive upload deletes nothing", async () => {
    const { world, api, t } = await compactionWorld();
    const before = await api.listComments(world.repo, world.issue);
    const dry = await t.compact({ dryRun: true });
    expect(dry).toMatchObject({ selected: 5, deleted: 0, dryRun: true });
    expect(await api.listComments(world.repo, world.issue)).toHaveLength(before.length);
    expect(await api.listIssueAttachments(world.repo, world.issue)).toEqual([]);

    world.forge.admin.setFaults({ errorRate: 1, match: { routes: [ASSETS] } });
    await expect(t.compact()).rejects.toThrow();
    world.forge.admin.resetFaults();
    expect((await api.listComments(world.repo, world.issue)).map((c) => c.id)).toEqual(before.map((c) => c.id));
    expect((await world.bot.store.issueMeta(`agent/work#${world.issue}`)).compaction).toBeUndefined();
  });

  itNeeds("attachments", "a 500 after Forgejo stored the archive (an edit landed before it saved the issue) uses that archive: no second upload", async () => {
    const { world, api, t } = await compactionWorld();
    const admin = world.forge.admin;
    // The window of issue_attachment.go:206-225: the file is stored, then the body changes under the upload.
    admin.setSeams({
      afterAttachmentStored: () => {
        admin.setSeams({});
        admin.editIssueBody(world.repo.owner, world.repo.repo, world.issue, (body) => body);
      },
    });
    const result = await t.compact();
    expect(result).toMatchObject({ selected: 5, deleted: 5, dryRun: false });
    const assets = await api.listIssueAttachments(world.repo, world.issue);
    expect(assets.map((a) => a.name)).toEqual([result?.archive?.name]);
    expect(world.forge.admin.stats().requests[ASSETS]).toBe(1);
  });

  itNeeds("attachments", "archives superseded trusted health to a gzipped JSON Lines asset, then deletes it; checkpoints and the newest health stay", async () => {
    const { world, api, t } = await compactionWorld();
    const before = await api.listComments(world.repo, world.issue);
    const result = await t.compact();
    expect(result).toMatchObject({ selected: 5, deleted: 5, dryRun: false });
    const listed = await api.listComments(world.repo, world.issue);
    expect(listed.filter(isIndexComment).map((c) => c.id)).toEqual(before.filter(isIndexComment).map((c) => c.id)); // one, kept
    expect(listed.filter(isIndexComment)).toHaveLength(1);
    const after = listed.filter((c) => !isIndexComment(c));
    expect(kinds(after.map((c) => c.body))).toEqual([
      'health s1 {"n":5}',
      "checkpoint clone_complete",
      "checkpoint commit_complete",
      'health s2 {"n":2}',
      'health s1 {"n":99}', // mallory's: not ours to delete
      "none", // the bot's record of the archive (name and SHA-256), which makes it believable
    ]);
    // Everything deleted is in the archive, byte for byte.
    const [asset] = await api.listIssueAttachments(world.repo, world.issue);
    expect(asset?.name).toMatch(/^checkpost-health-archive-.*\.jsonl\.gz$/);
    const archived = readArchive(await api.downloadAttachment(asset?.downloadUrl as string));
    const deleted = before.filter((c) => !listed.some((a) => a.id === c.id));
    expect(after.at(-1)?.author).toBe("checkpost-bot");
    expect(after.at(-1)?.body).toContain(`"name":"${asset?.name}"`);
    expect(archived.map((a) => [a.id, a.body])).toEqual(deleted.map((c) => [c.id, c.body]));
    expect((await world.bot.store.issueMeta(`agent/work#${world.issue}`)).compaction).toMatchObject({ deleted: 5, archived: 5, archiveUrl: asset?.downloadUrl });
    // The bot still resumes and shows the newest health; the dashboard says what compaction removed and links the archive.
    await world.settle();
    const body = (await api.getIssue(world.repo, world.issue)).body;
    expect(body).toContain("compaction removed 5 superseded health signals older than 1m (5 archived: [latest archive](");
    expect(body).toContain(asset?.downloadUrl as string);
    expect(t.projection.latest("implementation-worker", "s1")?.phase).toBe("commit_complete");
    expect(t.projection.snapshot().entries.find((e) => e.session === "s1")?.health?.metrics).toEqual({ n: 5 });

    // `checkpost history --archived` reads it back.
    const out: string[] = [];
    const io = {
      out: (s: string) => out.push(s),
      err: (s: string) => out.push(`ERR ${s}`),
      readStdin: async () => "",
      env: {
        FORGEJO_URL: world.forge.url,
        FORGEJO_TOKEN: world.agentToken,
        FORGEJO_REPOSITORY: "agent/work",
        CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
        CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
      },
      cwd: process.cwd(),
    };
    expect(await runCli(["history", "--archived", "--session", "s1"], io), out.join("")).toBe(0);
    const lines = out
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { comment_id: number; metrics: unknown; issue: number });
    expect(lines.map((l) => l.metrics)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(lines.every((l) => l.issue === world.issue)).toBe(true);
  });

  itLacks("attachments", "is off on a host with no attachment API: nothing archived, nothing deleted, said once in the log", async () => {
    const { world, api, t } = await compactionWorld();
    const before = (await api.listComments(world.repo, world.issue)).map((c) => c.id);
    expect(await t.compact()).toBeNull();
    await t.maintain();
    expect(await t.compact()).toBeNull();
    expect((await api.listComments(world.repo, world.issue)).map((c) => c.id)).toEqual(before);
    expect(world.logs.filter((l) => l.includes("no attachment API"))).toHaveLength(1);
    expect((await world.bot.store.issueMeta(`agent/work#${world.issue}`)).compaction).toBeUndefined();
  });

  it("is off with CHECKPOST_HEALTH_RETENTION=off, and the writer's upkeep then deletes nothing", async () => {
    const env = (v: string) => botConfigFromEnv(parseEnv(BotEnvSchema, { CHECKPOST_REPOSITORIES: "a/b", CHECKPOST_HEALTH_RETENTION: v }), { url: "http://x", token: "t" }).healthRetentionMs;
    expect(env("off")).toBe(0);
    expect(env("24h")).toBe(86_400_000);
    expect(env("90m")).toBe(5_400_000);
    expect(() => env("soon")).toThrow(/CHECKPOST_HEALTH_RETENTION/);
    const world = (w = await botWorld({ healthRetentionMs: 0 }));
    const api = world.api(world.agentToken);
    for (let i = 1; i <= 3; i++) await api.createComment(world.repo, world.issue, health("s1", i));
    await world.settle();
    const before = (await api.listComments(world.repo, world.issue)).map((c) => c.id);
    expect(before).toHaveLength(3 + 1); // and the bot's resume index comment
    world.advance(48 * 3_600_000);
    await world.bot.tracker(world.repo, world.issue)?.maintain();
    expect((await api.listComments(world.repo, world.issue)).map((c) => c.id)).toEqual(before);
  });
});
