// The bot and snapshots (issue 30): an upload to a parts comment makes Forgejo send issue_comment
// `edited` for it; the bot takes that for what it is (a chatter comment edited), not a control or an
// anomaly, and its dashboard shows each agent's latest snapshot.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld;
afterEach(async () => w?.close());

describe("the bot and snapshot comments", () => {
  it("takes a parts comment's `edited` for a chatter edit and shows the latest snapshot on the dashboard", async () => {
    w = await botWorld();
    const work = mkdtempSync(join(tmpdir(), "checkpost-work-"));
    writeFileSync(join(work, "t.jsonl"), '{"turn":1}\n');
    const err: string[] = [];
    const out: string[] = [];
    const io: CliIo = {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      readStdin: async () => "",
      cwd: work,
      env: {
        FORGEJO_URL: w.forge.url,
        FORGEJO_TOKEN: w.agentToken,
        FORGEJO_REPOSITORY: `${w.repo.owner}/${w.repo.repo}`,
        CHECKPOST_ISSUE: String(w.issue),
        CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
        CHECKPOST_STATE_KEY: "a".repeat(64),
      },
    };
    expect(await runCli(["save", "--agent", "worker", "--session", "s1", "--phase", "tests_green", "--data", "{}"], io)).toBe(0);
    expect(await runCli(["snapshot", "save", "--agent", "worker", "--session", "s1", "t.jsonl"], io), err.join("")).toBe(0);
    await w.settle();
    await w.bot.flushDashboards();
    await w.settle();
    const parts = (await w.api(w.agentToken).listComments(w.repo, w.issue)).find((c) => c.body.startsWith("<!-- checkpost:snapshot-parts"));
    expect(parts).toBeDefined();
    // Forgejo's side: the upload edited the parts comment, and the bot was told.
    const edited = w.forge.admin.deliveries().filter((d) => d.event === "issue_comment" && d.action === "edited" && (JSON.parse(d.body) as { comment?: { id?: number } }).comment?.id === parts?.id);
    expect(edited.length).toBeGreaterThanOrEqual(2); // a chunk and the manifest
    expect(edited.every((d) => d.ok)).toBe(true);
    // The bot's side: no anomaly, no control, the agent's checkpoint still the resume point.
    const state = (await (await w.botFetch(`/api/resume?agent=worker&session=s1`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ phase: "tests_green", directive: null, not_used: [] });
    const body = (await w.api(w.agentToken).getIssue(w.repo, w.issue)).body;
    expect(body).toMatch(/#### Recent anomalies\s+_None\._/);
    expect(body).toMatch(/Latest snapshots: worker: 1 file, 11 B, sealed, just now/);
    expect((await w.api(w.agentToken).listComments(w.repo, w.issue)).filter((c) => c.body.startsWith("[CONTROL]"))).toEqual([]);
  });
});
