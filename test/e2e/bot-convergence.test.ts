import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { createProjection } from "../../src/projection/index.ts";
import { toCommentRecord } from "../../src/session-client/index.ts";

let w: BotWorld;
afterEach(async () => w?.close());

const cp = (phase: string, session = "s1") => formatCheckpoint({ agent: "implementation-worker", session, phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase } });

/** What a full rebuild from today's comment list says. */
async function rebuild() {
  const p = createProjection({ trustedAuthors: new Set(["agent", "checkpost-bot"]) });
  p.replaceAll((await w.api(w.agentToken).listComments(w.repo, w.issue)).map(toCommentRecord));
  return p.snapshot();
}

/** The bot's snapshot without history-only records (deleted-checkpoint anomalies, which a list cannot show). */
function comparable(s: ReturnType<typeof rebuild> extends Promise<infer T> ? T : never) {
  return { ...s, anomalies: s.anomalies.filter((a) => a.kind !== "deleted-checkpoint") };
}

/**
 * A reconcile, then the bot's dashboard write (which creates or edits the bot's own resume index
 * comment, a comment like any other), then a reconcile that reads that comment too: what a bot
 * without webhooks converges on.
 */
async function reconcileSettled() {
  await w.bot.reconcileAll();
  await w.bot.flushDashboards();
  await w.bot.reconcileAll();
}

async function activity() {
  const api = w.api(w.agentToken);
  const a = await api.createComment(w.repo, w.issue, cp("clone_complete"));
  await api.createComment(w.repo, w.issue, cp("subtask_1_complete"));
  const c = await api.createComment(w.repo, w.issue, cp("commit_complete"));
  await api.createComment(w.repo, w.issue, formatHealth({ agent: "orch", session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: { q: 1 } }));
  await w.api(w.malloryToken).createComment(w.repo, w.issue, cp("pr_created"));
  await api.createComment(w.repo, w.issue, "just chatting");
  // Forgejo keeps whole seconds: an edit in the creation second is invisible to a list reader (docs/projection.md),
  // so the edit happens a few seconds later, as edits by people do.
  const later = Date.now() + 5000;
  w.forge.admin.setClock(() => later);
  await api.editComment(w.repo, a.id, cp("clone_complete").replace('"phase": "clone_complete"', '"phase": "edited"'));
  await api.deleteComment(w.repo, c.id);
  await api.createComment(w.repo, w.issue, cp("clone_complete", "s2"));
}

describe("webhooks, duplicates, reordering and polling converge on the full rebuild", () => {
  it("duplicate and out-of-order redeliveries leave the projection equal to a rebuild", async () => {
    w = await botWorld();
    await activity();
    await w.settle();
    const deliveries = w.forge.admin.deliveries().filter((d) => d.event === "issue_comment");
    expect(deliveries.length).toBeGreaterThanOrEqual(9);
    const expected = comparable(await rebuild());
    const redeliver = async (order: number[]) => {
      for (const i of order) {
        const d = deliveries[i];
        if (!d) continue;
        const r = await fetch(d.url, { method: "POST", headers: d.requestHeaders, body: d.body });
        expect(r.ok).toBe(true); // still correctly signed: accepted, and must change nothing
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: deliveries.length - 1 }), { minLength: 1, maxLength: 30 }), async (order) => {
        await redeliver(order);
        await w.bot.idle();
        expect(comparable(w.bot.trackers()[0]!.projection.snapshot())).toEqual(expected);
      }),
      { numRuns: 25, seed: 42 },
    );
  });

  it("polling alone, and polling plus webhooks, reach the same state as a rebuild", async () => {
    w = await botWorld({}, { webhook: false }); // a bot whose webhooks cannot reach it
    await activity();
    await w.bot.pollAll(); // sees creates and edits, not deletes
    await w.bot.reconcileAll(); // notices the deletion
    expect(comparable(w.bot.trackers()[0]!.projection.snapshot())).toEqual(comparable(await rebuild()));

    const api = w.api(w.agentToken);
    await api.createComment(w.repo, w.issue, cp("all_subtasks_complete"));
    await w.bot.pollAll();
    await w.bot.pollAll(); // the boundary second is read twice: nothing changes
    const snap = w.bot.trackers()[0]!.projection.snapshot();
    expect(snap.entries.find((e) => e.session === "s1")?.latest?.phase).toBe("all_subtasks_complete");
    expect(comparable(snap)).toEqual(comparable(await rebuild()));
  });

  it("webhooks and polling together change nothing when they see the same comments", async () => {
    w = await botWorld();
    await activity();
    await w.settle();
    const before = w.bot.trackers()[0]!.projection.snapshot();
    await w.bot.pollAll();
    await w.bot.reconcileAll();
    await w.bot.pollAll();
    expect(w.bot.trackers()[0]!.projection.snapshot()).toEqual(before);
    expect(comparable(before)).toEqual(comparable(await rebuild()));
  });

  it("a reconcile folded window by window (large issues) equals a rebuild, deletions included", async () => {
    w = await botWorld({ readWindowSize: 3 }, { webhook: false });
    await activity();
    await reconcileSettled();
    expect(comparable(w.bot.trackers()[0]!.projection.snapshot())).toEqual(comparable(await rebuild()));
    const api = w.api(w.agentToken);
    const extra = await api.createComment(w.repo, w.issue, cp("all_subtasks_complete"));
    await reconcileSettled();
    await api.deleteComment(w.repo, extra.id);
    await reconcileSettled();
    const snap = w.bot.trackers()[0]!.projection.snapshot();
    expect(snap.entries.find((e) => e.session === "s1")?.latest?.phase).not.toBe("all_subtasks_complete");
    expect(comparable(snap)).toEqual(comparable(await rebuild()));
  });
});
