// Issue 33, item 10: a bot store written by the previous release (0.2.0, SQLite schema 1; provenance in
// fixtures/upgrade/README.md) opens with today's code: it is migrated in place, keeps its comments and
// watermark, and the bot starts on it and answers from it.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startBot } from "../../src/app/start-bot.ts";
import type { Bot } from "../../src/bot/create-bot.ts";
import { createSqliteProjectionStore } from "../../src/bot-state/index.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import { createLogger } from "../../src/log/create-logger.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";

const fixture = (f: string) => fileURLToPath(new URL(`../../fixtures/upgrade/${f}`, import.meta.url));
let forge: ForgeServer | undefined;
let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  await forge?.close();
});

describe("a store written by checkpost 0.2.0", () => {
  it("is migrated on open and keeps what it held; the bot starts on it and resumes from it", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "checkpost-upgrade-")), "projection.sqlite");
    copyFileSync(fixture("projection-0.2.0.sqlite"), file);
    const old = new Database(file, { readonly: true });
    expect(old.pragma("user_version", { simple: true })).toBe(1);
    old.close();

    const store = createSqliteProjectionStore(file);
    const issue = "agent/work#1";
    expect((await store.comments(issue)).map((c) => c.id)).toEqual([1, 2]);
    expect(await store.watermark(issue)).not.toBeNull();
    const migrated = new Database(file, { readonly: true });
    expect(migrated.pragma("user_version", { simple: true })).toBe(3);
    migrated.close();

    // The same issue on a Forgejo, and the bot started on the old store.
    forge = await startForge({ port: 0 });
    const a = forge.admin;
    a.createUser("checkpost-bot");
    a.createUser("agent");
    const botToken = a.createToken("checkpost-bot");
    a.createRepo("agent", "work");
    a.addCollaborator("agent", "work", "checkpost-bot", "write");
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "Notes.", labels: [DEFAULT_SESSION_LABEL] });
    const { comments } = JSON.parse(readFileSync(fixture("issue-0.2.0.json"), "utf8")) as { comments: { body: string }[] };
    a.bulkComments(
      "agent",
      "work",
      1,
      comments.map((c) => ({ body: c.body, login: "agent" })),
    );
    const config = {
      ...defaultBotConfig({ url: forge.url, token: botToken }, [{ owner: "agent", repo: "work" }]),
      trustedAuthors: ["agent"],
      insecure: true,
      port: 0,
      apiTokens: ["upgrade-test-api-token-0123"],
    };
    bot = await startBot(config, { logger: createLogger({ level: "silent" }), store });
    const r = await fetch(`${bot.url}/api/resume?agent=implementation-worker&session=s1`, { headers: { authorization: "Bearer upgrade-test-api-token-0123" } });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ phase: "commit_complete", state: { commit_sha: "abc123" } });
    await bot.stop();
    bot = undefined;
    await store.close();
  });
});
