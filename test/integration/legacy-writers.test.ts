import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { commentFixture } from "../../fixtures/index.ts";
import { describeWithPython3, runPython, seedFunction } from "../helpers/seed-python.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP } from "../../src/protocol/index.ts";
import { renderDashboard, spliceDashboard } from "../../src/dashboard/index.ts";
import type { LegacyWriters } from "../../src/projection/index.ts";

let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function io(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env, cwd: process.cwd() };
  return { cli, err, json: () => JSON.parse(out.join("")) as Record<string, unknown> };
}

const A = "implementation-worker";
const S = "sess-42";

/** A checkpost worker saves, then another resumes with --take-over (epoch 2, written at once: one above what a resume that writes nothing holds). Returns the env and the take-over's comment. */
async function takenOver(w: ForgeWorld) {
  const env = { FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")) };
  expect(await runCli(["save", "--agent", A, "--session", S, "--phase", "clone_complete", "--data", '{"by":"checkpost"}'], io(env).cli)).toBe(0);
  const t = io(env);
  expect(await runCli(["resume", "--agent", A, "--session", S, "--take-over"], t.cli)).toBe(0);
  const took = t.json() as { epoch: number; takeover_comment_id: number };
  expect(took.epoch).toBe(2);
  return { env, fenceComment: took.takeover_comment_id };
}

async function resume(env: NodeJS.ProcessEnv, ...extra: string[]) {
  const r = io(env);
  const code = await runCli(["resume", "--agent", A, "--session", S, ...extra], r.cli);
  return { code, err: r.err.join(""), ...(code === 0 ? { out: r.json() } : {}) };
}

describe("a seed-format checkpoint after a take-over (CHECKPOST_LEGACY_WRITERS)", () => {
  it("fence (default): resume stays at the take-over and says which comment was not used, why, and what to change", async () => {
    world = await forgeWorld();
    const { env, fenceComment } = await takenOver(world);
    // The seed's agent, still running, checkpoints as it always did: no Id, Seq or Epoch.
    const seed = await world.api().createComment({ owner: "agent", repo: "work" }, world.issue, commentFixture("seed-unfenced"));
    const r = await resume(env);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ phase: "clone_complete", state: { by: "checkpost" }, checkpoint: { commentId: fenceComment, epoch: 2 }, epoch: 3 });
    expect(r.out?.["not_used"]).toEqual([
      {
        commentId: seed.id,
        phase: "clone_complete",
        createdAt: expect.any(String),
        htmlUrl: seed.htmlUrl,
        kind: "zombie",
        legacy: true,
        fence: 2,
        reason: "legacy writer without Epoch below fence 2",
        policy: { setting: "CHECKPOST_LEGACY_WRITERS", value: "fence", change: expect.stringContaining("CHECKPOST_LEGACY_WRITERS=accept") },
      },
    ]);
  });

  it("accept (env or --legacy-writers): resume continues from the seed agent's checkpoint, above the fence", async () => {
    world = await forgeWorld();
    const { env } = await takenOver(world);
    const seed = await world.api().createComment({ owner: "agent", repo: "work" }, world.issue, commentFixture("seed-unfenced"));
    for (const [e, flags] of [
      [{ ...env, CHECKPOST_LEGACY_WRITERS: "accept" }, []],
      [env, ["--legacy-writers", "accept"]],
    ] as const) {
      const r = await resume(e, ...flags);
      expect(r.code).toBe(0);
      expect(r.out).toMatchObject({ phase: "clone_complete", state: { branch_name: "feat/issue-7", issue_number: 7 }, checkpoint: { commentId: seed.id }, not_used: [] });
      // The next worker takes over above the fence the checkpost worker wrote, not above the seed's (absent) epoch.
      expect(r.out?.["epoch"]).toBe(3);
    }
    // A checkpost writer below the fence is still refused under accept.
    expect(
      await runCli(
        ["save", "--agent", A, "--session", S, "--phase", "pr_created", "--data", "{}", "--epoch", "0", "--seq", "9"],
        io({ ...env, CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "c-")) }).cli,
      ),
    ).toBe(0);
    const after = await resume({ ...env, CHECKPOST_LEGACY_WRITERS: "accept" });
    expect(after.out).toMatchObject({ checkpoint: { commentId: seed.id }, not_used: [{ kind: "zombie", legacy: false, fence: 2, phase: "pr_created" }] });
  });

  it("a bad value is named with what it must be", async () => {
    world = await forgeWorld();
    const { env } = await takenOver(world);
    const r = await resume({ ...env, CHECKPOST_LEGACY_WRITERS: "yes" });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/CHECKPOST_LEGACY_WRITERS: must be "fence".*or "accept"/);
    const f = await resume(env, "--legacy-writers", "maybe");
    expect(f.code).toBe(2);
    expect(f.err).toMatch(/must be "fence" or "accept"/);
  });
});

const seedText = readFileSync(fileURLToPath(new URL("../../fixtures/seed/session_state.md.txt", import.meta.url)), "utf8");

describeWithPython3("the seed's own Python writer after a take-over", () => {
  it("its checkpoint is fenced by default and resumed from under accept", async () => {
    world = await forgeWorld();
    const { env } = await takenOver(world);
    // The seed's create_checkpoint and format_checkpoint_comment, verbatim; only the published
    // `return comment`, which lost its indentation, is indented again.
    const start = seedText.indexOf("def format_checkpoint_comment(");
    const end = seedText.indexOf("\nreturn comment", start);
    const program = [
      "import json, sys",
      "from datetime import datetime",
      'CHECKPOINT_VERSION = "1.0"',
      seedFunction("create_checkpoint"),
      `${seedText.slice(start, end)}\n    return comment`,
      "a = json.load(sys.stdin)",
      "sys.stdout.write(format_checkpoint_comment(create_checkpoint(a['agent'], a['session'], 'subtask_1_complete', {'completed_subtasks': [1]})))",
    ].join("\n");
    const body = runPython(program, { agent: A, session: S });
    expect(body.startsWith(`[CHECKPOINT] ${A}\nVersion: 1.0\nPhase: subtask_1_complete\nSession: ${S}\n`)).toBe(true);
    const seed = await world.api().createComment({ owner: "agent", repo: "work" }, world.issue, body);
    const fenced = await resume(env);
    expect(fenced.out).toMatchObject({ phase: "clone_complete", not_used: [{ commentId: seed.id, legacy: true, reason: "legacy writer without Epoch below fence 2" }] });
    const accepted = await resume({ ...env, CHECKPOST_LEGACY_WRITERS: "accept" });
    expect(accepted.out).toMatchObject({ resume_point: "phase_2_continue", phase: "subtask_1_complete", state: { completed_subtasks: [1] }, checkpoint: { commentId: seed.id }, not_used: [] });
  });
});

describe("the resume index (the bot's shortcut) and legacy writers", () => {
  /** A checkpost take-over at epoch 2, then a seed checkpoint (a zombie under fence), then the bot's index written under `writer`. */
  async function indexed(writer: LegacyWriters) {
    const w = await forgeWorld();
    world = w;
    let t = Math.floor(Date.now() / 1000) * 1000;
    w.forge.admin.setClock(() => t);
    const repo = { owner: "agent", repo: "work" };
    const store = (legacyWriters?: LegacyWriters) => new SessionStore({ api: w.api(), repo, issue: w.issue, ...(legacyWriters ? { legacyWriters } : {}) });
    t += 1000;
    const fence = await store().save({ agent: A, session: S, phase: "clone_complete", data: { by: "checkpost" }, seq: 1, epoch: 2 });
    t += 1000;
    const seed = await w.api().createComment(repo, w.issue, commentFixture("seed-unfenced"));
    // Later chatter moves the index's watermark past the seed comment, so the shortcut's tail does not list it.
    t += 2000;
    await w.api().createComment(repo, w.issue, "a person's note");
    t += 1000;
    const snap = await store(writer).snapshot();
    const body = (await w.api().getIssue(repo, w.issue)).body;
    await w.api().editIssue(repo, w.issue, { body: spliceDashboard(body, renderDashboard(snap, new Date(t), { legacyWriters: writer })) });
    t += 1000;
    const resume = async (reader?: LegacyWriters) => (await store(reader).resume(A, S, IMPLEMENTATION_WORKER_PHASE_MAP)) as Awaited<ReturnType<SessionStore["resume"]>> & { via?: string };
    return { fence, seed, resume };
  }

  it("fence on both sides: the shortcut is taken and still names the seed's checkpoint as not used", async () => {
    const { fence, seed, resume } = await indexed("fence");
    const r = await resume();
    expect(r).toMatchObject({ via: "index", checkpoint: { commentId: fence.comment_id }, epoch: 3 });
    expect(r.not_used).toMatchObject([{ commentId: seed.id, legacy: true, reason: "legacy writer without Epoch below fence 2" }]);
  });

  it("a reader whose policy differs from the index's reads every comment, and answers by its own policy", async () => {
    const a = await indexed("fence");
    expect(await a.resume("accept")).toMatchObject({ via: "full", checkpoint: { commentId: a.seed.id }, not_used: [], epoch: 3 });
    await world?.close();
    const b = await indexed("accept");
    expect(await b.resume("accept")).toMatchObject({ checkpoint: { commentId: b.seed.id }, not_used: [], epoch: 3 });
    expect(await b.resume()).toMatchObject({ via: "full", checkpoint: { commentId: b.fence.comment_id }, not_used: [{ commentId: b.seed.id }] });
  });
});
