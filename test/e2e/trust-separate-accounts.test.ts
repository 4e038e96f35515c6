// Issue 33, item 1: with separate accounts (bot = repository admin, agents and a person = write) and an
// agent left out of CHECKPOST_TRUSTED_AUTHORS, its first save is not dropped in silence: the bot's start-up
// log says so once at warn, the dashboard names the author and the exact setting, and `status` and `doctor`
// run with the bot's settings exit non-zero with the same sentence.
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { ignoredAuthors, ignoredAuthorsText } from "../../src/dashboard/index.ts";
import { API_TOKEN, botWorld, type BotWorld } from "../helpers/bot-world.ts";

let world: BotWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function cli(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => "",
    env: { CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-trust-")), ...env },
    cwd: tmpdir(),
  };
  return { io, out, err };
}

const warnings = (logs: string[]) => logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40 && l.msg.startsWith("trust:"));

describe("an agent outside the trusted list, with separate accounts", () => {
  it("is named with its setting by the start-up log, the dashboard, status and doctor alike", async () => {
    world = await botWorld({ trustedAuthors: [] }, { botAdmin: true, writers: ["agent-1", "alice"] });
    const w = world;
    // Start-up: once, at warn, before any save.
    expect(warnings(w.logs).map((l) => l.msg)).toEqual([
      'trust: agent-1, alice can write but are not trusted authors: their checkpoints are ignored. If any is an agent, add it: CHECKPOST_TRUSTED_AUTHORS=agent-1,alice on the bot and on every agent (docs/security.md, "Trusted authors")',
    ]);

    // The agent's first save, with its own token.
    const agentToken = w.forge.admin.createToken("agent-1");
    const repo = `${w.repo.owner}/${w.repo.repo}`;
    const asAgent = cli({ FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: agentToken, FORGEJO_REPOSITORY: repo });
    expect(await runCli(["save", "--agent", "implementation-worker", "--session", "s1", "--phase", "clone_complete", "--data", "{}"], asAgent.io)).toBe(0);
    await w.settle();

    const sentence = ignoredAuthorsText({ authors: ["agent-1"], more: 0 }, []) as string;
    expect(sentence).toContain("set CHECKPOST_TRUSTED_AUTHORS=agent-1 on the bot");
    const body = (await w.api(w.botToken).getIssue(w.repo, w.issue)).body;
    expect(body).toContain("· 1 ignored author");
    expect(body).toContain("⚠️ **Ignored authors:** checkpoints by agent-1 are ignored");
    expect(body).toContain("set `CHECKPOST_TRUSTED_AUTHORS=agent-1` on the bot");
    // The bot's own answer agrees: nothing to resume.
    const resume = (await (await w.botFetch("/api/resume?agent=implementation-worker&session=s1")).json()) as { checkpoint: unknown; not_used: unknown[] };
    expect(resume.checkpoint).toBeNull();

    // status and doctor with the bot's settings: non-zero, the same sentence.
    const botEnv = { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.botToken, FORGEJO_REPOSITORY: repo, CHECKPOST_API_TOKEN: API_TOKEN };
    const status = cli(botEnv);
    expect(await runCli(["status"], status.io)).toBe(3);
    expect(status.out.join("")).toContain(`ignored authors: ${sentence}`);
    const doctor = cli(botEnv);
    expect(await runCli(["doctor", "--json"], doctor.io)).toBe(1);
    const checks = (JSON.parse(doctor.out.join("")) as { checks: { check: string; status: string; message: string }[] }).checks;
    expect(checks.find((c) => c.check === "ignored-authors")).toMatchObject({ status: "fail", message: sentence });
    // Every reader folds the same comments the same way: the pure function agrees with what they printed.
    expect(ignoredAuthors({ anomalies: [{ kind: "untrusted-author", commentId: 1, agent: null, session: null, detail: "", author: "agent-1" }] }).authors).toEqual(["agent-1"]);
    // The bot's start-up warning was the only one: nothing repeats it per poll.
    expect(warnings(w.logs)).toHaveLength(1);
  });

  it("listed, the same first save is on the dashboard and nothing is said at start-up", async () => {
    world = await botWorld({ trustedAuthors: ["agent-1", "agent"] }, { botAdmin: true, writers: ["agent-1"] });
    const w = world;
    expect(warnings(w.logs)).toEqual([]);
    const agentToken = w.forge.admin.createToken("agent-1");
    const asAgent = cli({ FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: agentToken, FORGEJO_REPOSITORY: `${w.repo.owner}/${w.repo.repo}` });
    expect(await runCli(["save", "--agent", "implementation-worker", "--session", "s1", "--phase", "clone_complete", "--data", "{}"], asAgent.io)).toBe(0);
    await w.settle();
    const body = (await w.api(w.botToken).getIssue(w.repo, w.issue)).body;
    expect(body).toContain("1 agent session ·");
    expect(body).not.toContain("Ignored authors");
  });
});
