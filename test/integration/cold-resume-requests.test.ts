import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatControl, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { renderDashboard, spliceDashboard } from "../../src/dashboard/index.ts";
import { ONE_READ_MAX_ID_GAP } from "../../src/session-client/cold-resume.ts";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { LoginCache } from "../../src/cli/login-cache.ts";

// Issue 11: a cold resume with the bot's index costs the issue read plus one `since` read when the
// indexed checkpoint is recent, and the issue plus two reads at once otherwise; the token's login
// comes from the CLI's per-machine cache, so no GET /user.

const AGENT = "implementation-worker";
const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
const repo = { owner: "agent", repo: "work" };
let w: ForgeWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** What the bot does: project every comment and write the dashboard with the resume index. */
async function writeIndex(world: ForgeWorld) {
  const snap = await world.store({ selfLogin: "agent" }).snapshot();
  const api = world.api();
  const body = (await api.getIssue(repo, world.issue)).body;
  await api.editIssue(repo, world.issue, { body: spliceDashboard(body, renderDashboard(snap, new Date())) });
}

const noise = (world: ForgeWorld, n: number, at: number) =>
  world.forge.admin.bulkComments(
    "agent",
    "work",
    world.issue,
    Array.from({ length: n }, (_, i) => ({
      login: "agent",
      body: formatHealth({ agent: `other-${i}`, session: "s1", metrics: { i }, timestamp: pythonUtcIsoformat(new Date()) }),
      createdAt: at,
    })),
  );

describe("cold resume through the resume index", () => {
  it("recent checkpoint: the issue and one since read (2 requests), the answer checked as always", async () => {
    w = await forgeWorld();
    const store = () => w!.store({ selfLogin: "agent" });
    await store().save({ agent: AGENT, session: "s1", phase: "clone_complete", data: { n: 1 } });
    await store().save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: { n: 2 } });
    await writeIndex(w);
    w.forge.admin.resetStats();
    const r = await store().resume(AGENT, "s1", MAP);
    expect(r).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    const s = w.forge.admin.stats();
    expect(s.totalRequests).toBe(2);
    expect(s.requests["GET /repos/{owner}/{repo}/issues/{index}/comments"]).toBe(1);
    expect(s.requests["GET /repos/{owner}/{repo}/issues/comments/{id}"]).toBeUndefined();
  });

  it("a checkpoint far below the watermark is fetched by id beside the tail (3 requests), not by reading everything since it", async () => {
    w = await forgeWorld();
    // The forge's clock moves only here: the checkpoint is a second older than the watermark.
    let t = Math.floor(Date.now() / 1000) * 1000 - 10_000;
    w.forge.admin.setClock(() => t);
    const store = () => w!.store({ selfLogin: "agent" });
    await store().save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: { n: 2 } });
    t += 1000;
    noise(w, ONE_READ_MAX_ID_GAP + 8, t);
    await writeIndex(w);
    w.forge.admin.resetStats();
    const r = await store().resume(AGENT, "s1", MAP);
    expect(r).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    const s = w.forge.admin.stats();
    expect(s.totalRequests).toBe(3);
    expect(s.requests["GET /repos/{owner}/{repo}/issues/comments/{id}"]).toBe(1);
  });

  it("a newer checkpoint posted after the index is found in the one read", async () => {
    w = await forgeWorld();
    const store = () => w!.store({ selfLogin: "agent" });
    await store().save({ agent: AGENT, session: "s1", phase: "clone_complete", data: { n: 1 } });
    await writeIndex(w);
    await store().save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: { n: 2 } });
    w.forge.admin.resetStats();
    expect(await store().resume(AGENT, "s1", MAP)).toMatchObject({ phase: "subtask_1_complete", via: "index" });
    expect(w.forge.admin.stats().totalRequests).toBe(2);
  });
});

function io(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", env, cwd: process.cwd() };
  return { cli, json: () => JSON.parse(out.join("")) as unknown };
}

describe("the CLI remembers the token's login", () => {
  it("a save teaches it; a cold resume then makes no GET /user; the file never holds the token", async () => {
    w = await forgeWorld();
    const dir = mkdtempSync(join(tmpdir(), "checkpost-cache-"));
    const env = { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: dir, CHECKPOST_ISSUE: String(w.issue) };
    expect(await runCli(["save", "--agent", AGENT, "--session", "s1", "--phase", "subtask_1_complete", "--data", '{"n":1}'], io(env).cli)).toBe(0);
    await writeIndex(w);
    w.forge.admin.resetStats();
    const r = io(env);
    expect(await runCli(["resume", "--agent", AGENT, "--session", "s1"], r.cli)).toBe(0);
    expect(r.json()).toMatchObject({ phase: "subtask_1_complete" });
    const s = w.forge.admin.stats();
    expect(s.requests["GET /user"]).toBeUndefined();
    expect(s.totalRequests).toBe(2);
    const file = readFileSync(join(dir, "logins.json"), "utf8");
    expect(file).toContain('"agent"');
    expect(file).not.toContain(w.token);
  });

  it("40 commenter [CONTROL] rewinds and one with a bad target add no request to a CLI resume (issue 28.2)", async () => {
    w = await forgeWorld();
    const dir = mkdtempSync(join(tmpdir(), "checkpost-cache-"));
    const env = { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: dir, CHECKPOST_ISSUE: String(w.issue) };
    expect(await runCli(["save", "--agent", AGENT, "--session", "s1", "--phase", "subtask_1_complete", "--data", '{"n":1}'], io(env).cli)).toBe(0);
    await writeIndex(w);
    const mallory = w.api(w.strangerToken);
    for (let i = 0; i <= 40; i++)
      await mallory.createComment(
        repo,
        w.issue,
        formatControl({ agent: AGENT, session: "s1", action: "rewind", target: 100_000 + i, epoch: 9, by: "mallory", timestamp: pythonUtcIsoformat(new Date()) }),
      );
    w.forge.admin.resetStats();
    const r = io(env);
    expect(await runCli(["resume", "--agent", AGENT, "--session", "s1"], r.cli)).toBe(0);
    expect(r.json()).toMatchObject({ phase: "subtask_1_complete", directive: null });
    expect(w.forge.admin.stats().requests["GET /repos/{owner}/{repo}/issues/comments/{id}"]).toBeUndefined();
    expect(w.forge.admin.stats().totalRequests).toBeLessThanOrEqual(3);
  });

  it("a wrong remembered login (a renamed user) is noticed: one GET /user, the right answer, the cache corrected", async () => {
    w = await forgeWorld();
    const dir = mkdtempSync(join(tmpdir(), "checkpost-cache-"));
    const env = { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: dir, CHECKPOST_ISSUE: String(w.issue) };
    await w.store({ selfLogin: "agent" }).save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: { n: 1 } });
    await writeIndex(w);
    const cache = new LoginCache(dir, {});
    cache.set(w.forge.url, w.token, "old-name");
    w.forge.admin.resetStats();
    const r = io(env);
    expect(await runCli(["resume", "--agent", AGENT, "--session", "s1"], r.cli)).toBe(0);
    expect(r.json()).toMatchObject({ phase: "subtask_1_complete" });
    expect(w.forge.admin.stats().requests["GET /user"]).toBe(1);
    expect(cache.get(w.forge.url, w.token)).toBe("agent");
  });

  it("an entry older than a day is not used", () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-cache-"));
    let now = 1_000_000;
    const cache = new LoginCache(dir, {}, () => now);
    cache.set("http://f", "tok", "agent");
    expect(cache.get("http://f", "tok")).toBe("agent");
    expect(cache.get("http://f", "other-token")).toBeUndefined();
    now += 24 * 3600_000;
    expect(cache.get("http://f", "tok")).toBeUndefined();
  });
});
