/**
 * Issue 19.4: health archives are the bot's. `checkpost history --archived` believes an attachment only
 * when a comment by the bot, not edited, records its SHA-256; any other attachment named like an
 * archive is listed as untrusted with its contents unread, and a corrupt archive is reported and
 * skipped (exit 0).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { itNeeds } from "../helpers/host-capabilities.ts";
import { formatArchiveRecord, parseArchiveRecord, sha256Hex, trustedArchiveRecords } from "../../src/compaction/archive-record.ts";
import { runCli } from "../../src/app/cli.ts";
import { formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { botWorld, type BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const health = (n: number) => formatHealth({ agent: "implementation-worker", session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: { n } });
const archiveOf = (lines: { id: number; author: string; body: string }[]) =>
  gzipSync(Buffer.from(lines.map((l) => JSON.stringify({ ...l, created_at: "2026-12-01T10:00:00Z", updated_at: "2026-12-01T10:00:00Z" })).join("\n")));

async function history(world: BotWorld, extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["history", "--archived"], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    readStdin: async () => "",
    env: {
      FORGEJO_URL: world.forge.url,
      FORGEJO_TOKEN: world.agentToken,
      FORGEJO_REPOSITORY: "agent/work",
      CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "archives-")),
      ...extraEnv,
    },
    cwd: process.cwd(),
  });
  const lines = out
    .join("")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines, err: err.join("") };
}

describe("health archives are the bot's", () => {
  itNeeds("attachments", "believes only archives the bot recorded, lists the others as untrusted, and skips a corrupt one", async () => {
    const world = (w = await botWorld({ healthRetentionMs: 60_000 }));
    const agent = world.api(world.agentToken);
    for (let i = 1; i <= 3; i++) await agent.createComment(world.repo, world.issue, health(i));
    await world.settle();
    world.advance(120_000);
    const result = await world.bot.tracker(world.repo, world.issue)?.compact();
    expect(result).toMatchObject({ selected: 2, deleted: 2 });
    const real = result?.archive?.name as string;

    // mallory may write to the repository (so Forgejo lets her attach files to the issue).
    world.forge.admin.addCollaborator("agent", "work", "mallory", "write");
    const mallory = world.api(world.malloryToken);
    const forged = archiveOf([{ id: 1, author: "implementation-worker", body: health(666) }]);
    await mallory.createIssueAttachment(world.repo, world.issue, "checkpost-health-archive-20261201T100000Z-1-1.jsonl.gz", forged);
    await mallory.createIssueAttachment(world.repo, world.issue, real, forged); // the real archive's name, other bytes
    // Her own record of a forged archive names the right hash, but she is not the bot.
    await mallory.createIssueAttachment(world.repo, world.issue, "checkpost-health-archive-mine.jsonl.gz", forged);
    await mallory.createComment(
      world.repo,
      world.issue,
      formatArchiveRecord({ name: "checkpost-health-archive-mine.jsonl.gz", sha256: sha256Hex(forged), bytes: forged.length, comments: 1, first: 1, last: 1 }),
    );
    // A record by the bot that she then edits to name her bytes.
    const bot = world.api(world.botToken);
    const good = archiveOf([{ id: 2, author: "implementation-worker", body: health(7) }]);
    await mallory.createIssueAttachment(world.repo, world.issue, "checkpost-health-archive-edited.jsonl.gz", forged);
    const rec = await bot.createComment(
      world.repo,
      world.issue,
      formatArchiveRecord({ name: "checkpost-health-archive-edited.jsonl.gz", sha256: sha256Hex(good), bytes: good.length, comments: 1, first: 2, last: 2 }),
    );
    // A corrupt archive the bot recorded (a bad upload): reported and skipped, not the end of the command.
    const corrupt = Buffer.from("not gzip at all");
    await bot.createIssueAttachment(world.repo, world.issue, "checkpost-health-archive-corrupt.jsonl.gz", corrupt);
    await bot.createComment(
      world.repo,
      world.issue,
      formatArchiveRecord({ name: "checkpost-health-archive-corrupt.jsonl.gz", sha256: sha256Hex(corrupt), bytes: corrupt.length, comments: 1, first: 3, last: 3 }),
    );
    world.forge.admin.setClock(() => Date.now() + 5000); // her edit lands in a later second, as it would in life
    await mallory.editComment(
      world.repo,
      rec.id,
      formatArchiveRecord({ name: "checkpost-health-archive-edited.jsonl.gz", sha256: sha256Hex(forged), bytes: forged.length, comments: 1, first: 2, last: 2 }),
    );
    world.forge.admin.setClock(null);

    const r = await history(world);
    expect(r.code).toBe(0);
    const believed = r.lines.filter((l) => l["trusted"] === true && l["comment_id"] !== undefined);
    expect(believed.map((l) => [l["archive"], (l["metrics"] as { n: number }).n, l["recorded_by"]])).toEqual([
      [real, 1, "checkpost-bot"],
      [real, 2, "checkpost-bot"],
    ]);
    expect(JSON.stringify(r.lines)).not.toContain("666");
    const untrusted = r.lines.filter((l) => l["trusted"] === false).map((l) => [l["archive"], l["reason"]]);
    expect(untrusted).toEqual([
      ["checkpost-health-archive-20261201T100000Z-1-1.jsonl.gz", "no record by the bot names this archive"],
      [real, "its bytes are not the ones the bot recorded (SHA-256 differs)"],
      ["checkpost-health-archive-mine.jsonl.gz", "no record by the bot names this archive"],
      ["checkpost-health-archive-edited.jsonl.gz", "no record by the bot names this archive"],
    ]);
    expect(r.lines.filter((l) => l["error"] !== undefined).map((l) => [l["archive"], String(l["error"]).slice(0, 20)])).toEqual([
      ["checkpost-health-archive-corrupt.jsonl.gz", "corrupt, skipped: in"],
    ]);
    expect(r.err).toContain("checkpost-health-archive-corrupt.jsonl.gz");
    for (const l of r.lines.filter((x) => x["trusted"] === false)) expect(l).not.toHaveProperty("author");
  });

  it("with a signing key, believes only signed records", () => {
    const base = { name: "checkpost-health-archive-x.jsonl.gz", sha256: "a".repeat(64), bytes: 10, comments: 1, first: 1, last: 1 };
    const at = "2026-12-01T10:00:00Z";
    const comments = [
      { id: 1, author: "Bot", body: formatArchiveRecord(base), createdAt: at, updatedAt: at },
      { id: 2, author: "bot", body: formatArchiveRecord(base, "k".repeat(20)), createdAt: at, updatedAt: at },
      { id: 3, author: "bot", body: formatArchiveRecord(base, "other-key-000000000"), createdAt: at, updatedAt: at },
    ];
    const judged = trustedArchiveRecords(comments, { botLogins: new Set(["bot"]), signingKey: "k".repeat(20) });
    expect(judged.trusted.map((t) => t.commentId)).toEqual([2]);
    expect(judged.refused.map((t) => [t.commentId, t.reason])).toEqual([
      [1, "its record is not signed with CHECKPOST_SIGNING_KEY"],
      [3, "its record is not signed with CHECKPOST_SIGNING_KEY"],
    ]);
    expect(trustedArchiveRecords(comments, { botLogins: new Set(["bot"]) }).trusted).toHaveLength(3);
    expect(parseArchiveRecord(`x${comments[0]?.body}`)).toBeNull();
    const odd = formatArchiveRecord({ ...base, name: "a --> b<c" });
    expect(odd.split("\n")[0]).not.toContain("--> b");
    expect(parseArchiveRecord(odd)?.name).toBe("a --> b<c");
  });
});
