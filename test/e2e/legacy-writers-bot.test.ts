import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint } from "../../src/protocol/index.ts";
import { commentFixture } from "../../fixtures/index.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const A = "implementation-worker";
const S = "sess-42";
/** A checkpost worker that took over at epoch 2 (a resume --take-over, as the CLI writes it). */
const takeOver = formatCheckpoint({
  agent: A,
  session: S,
  phase: "subtask_1_complete",
  timestamp: "2026-11-29T10:00:00Z",
  data: { by: "checkpost" },
  id: "cp-0000000000000000000000aa",
  seq: 1,
  epoch: 2,
});

async function world(legacyWriters: "fence" | "accept") {
  const bw = await botWorld({ legacyWriters });
  w = bw;
  const post = (body: string) => bw.api(bw.agentToken).createComment(bw.repo, bw.issue, body);
  const fence = await post(takeOver);
  // The seed's agent, still running, saves as it always did (no Id, Seq or Epoch).
  const seed = await post(commentFixture("seed-unfenced"));
  await bw.settle();
  const r = await bw.botFetch(`/api/resume?agent=${A}&session=${S}`);
  expect(r.status).toBe(200);
  return { bw, fence, seed, answer: (await r.json()) as Record<string, unknown> };
}

const anomalyLines = (bw: BotWorld) =>
  bw.logs
    .flatMap((chunk) => chunk.split("\n").filter(Boolean))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l["msg"] === "string" && (l["msg"] as string).startsWith("anomaly: "));

describe("the bot with a seed writer after a take-over", () => {
  it("fence: /api/resume and the dashboard say why the seed's checkpoint was not used; the zombie is logged once", async () => {
    const { bw, fence, seed, answer } = await world("fence");
    expect(answer).toMatchObject({ checkpoint: { commentId: fence.id, epoch: 2 }, phase: "subtask_1_complete", epoch: 3 });
    expect(answer["not_used"]).toMatchObject([
      { commentId: seed.id, kind: "zombie", legacy: true, fence: 2, reason: "legacy writer without Epoch below fence 2", policy: { setting: "CHECKPOST_LEGACY_WRITERS", value: "fence" } },
    ]);
    const body = (await bw.api(bw.agentToken).getIssue(bw.repo, bw.issue)).body;
    expect(body).toContain(`(comment ${seed.id}): legacy writer without Epoch below fence 2 (\`CHECKPOST_LEGACY_WRITERS=fence\`;`);
    expect(body).toMatch(/checkpoint \(comment \d+\)\]\([^)]*\) not used: legacy writer without Epoch below fence 2/);
    // Re-reads and re-derivations (a reconcile, a poll, another comment) do not log it again.
    await bw.bot.reconcileAll();
    await bw.bot.pollAll();
    await bw.api(bw.agentToken).createComment(bw.repo, bw.issue, "chatter");
    await bw.settle();
    for (const t of bw.bot.trackers()) await t.entriesStored();
    const zombies = anomalyLines(bw).filter((l) => l["kind"] === "zombie");
    expect(zombies).toHaveLength(1);
    expect(zombies[0]).toMatchObject({ commentId: seed.id, agent: A, session: S, level: 40 });
  });

  it("accept: /api/resume continues from the seed's checkpoint and takes over above the fence, not above its missing epoch", async () => {
    const { seed, answer } = await world("accept");
    expect(answer).toMatchObject({ checkpoint: { commentId: seed.id }, phase: "clone_complete", state: { branch_name: "feat/issue-7" }, not_used: [], epoch: 3 });
  });
});
