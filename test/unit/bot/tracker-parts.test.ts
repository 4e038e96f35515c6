// Two parts of the session tracker built alone, with only the ports they name (issue 31, item 3): what used
// to be the tracker's own state and callbacks (the unconfirmed box changes, a person's edit of the body) is
// now a part that a test makes without a tracker, a dashboard writer or a host.
import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { createMemoryProjectionStore, issueKey } from "../../../src/bot-state/index.ts";
import type { Fence } from "../../../src/bot-state/index.ts";
import { DASHBOARD_END, DASHBOARD_START, controlBoxesOf, formatControlCheckbox } from "../../../src/dashboard/index.ts";
import { BodyWatch } from "../../../src/bot/controls/body-watch.ts";
import type { BodyEditor } from "../../../src/bot/controls/control-desk.ts";
import { IssueMetaCell } from "../../../src/bot/upkeep/issue-meta.ts";

const repo = { owner: "o", repo: "r" };
const storeKey = issueKey(repo, 1);
const logger = pino({ level: "silent" });
const body = (paused: boolean) => `People's text.\n${DASHBOARD_START}\n${formatControlCheckbox({ action: "pause", agent: "w", session: "s1", checked: paused }, "Pause w")}\n${DASHBOARD_END}`;

async function writer(): Promise<{ store: ReturnType<typeof createMemoryProjectionStore>; fence: Fence }> {
  const store = createMemoryProjectionStore();
  const lease = await store.acquireLease(storeKey, "test", 60_000);
  if (!lease) throw new Error("no lease");
  return { store, fence: { name: lease.name, token: lease.token } };
}

describe("IssueMetaCell (upkeep/issue-meta.ts)", () => {
  it("keeps each unconfirmed box change once, in the store under the lease, and settles an agent+session's", async () => {
    const { store, fence } = await writer();
    let dirty = 0;
    const cell = new IssueMetaCell({ store, storeKey, key: "o/r#1", lease: { current: () => fence }, logger, dashboard: { markDirty: () => void dirty++ } });
    await cell.load();
    const pause = { action: "pause" as const, agent: "w", session: "s1" };
    await cell.addUnconfirmed([pause]);
    await cell.addUnconfirmed([pause, { action: "hide", agent: "v", session: "s2" }]);
    expect((await store.issueMeta(storeKey)).unconfirmed).toEqual([pause, { action: "hide", agent: "v", session: "s2" }]);
    await cell.settle("w", "s1");
    expect((await store.issueMeta(storeKey)).unconfirmed).toEqual([{ action: "hide", agent: "v", session: "s2" }]);
    expect(cell.meta.unconfirmed).toEqual([{ action: "hide", agent: "v", session: "s2" }]);
    expect(dirty).toBe(1);
    // Settling an agent+session with nothing unconfirmed changes nothing and marks nothing.
    await cell.settle("w", "s1");
    expect(dirty).toBe(1);
  });

  it("without the lease keeps the changes in memory only (the writer stores them)", async () => {
    const { store } = await writer();
    const cell = new IssueMetaCell({ store, storeKey, key: "o/r#1", lease: { current: () => null }, logger, dashboard: { markDirty: () => {} } });
    await cell.addUnconfirmed([{ action: "pause", agent: "w", session: "s1" }]);
    expect(cell.meta.unconfirmed).toHaveLength(1);
    expect((await store.issueMeta(storeKey)).unconfirmed).toBeUndefined();
  });
});

describe("BodyWatch (controls/body-watch.ts)", () => {
  const watch = async (own: (b: string) => boolean = () => false) => {
    const { store, fence } = await writer();
    const edits: { before: string; after: string; editor: BodyEditor }[] = [];
    const held: string[] = [];
    const w = new BodyWatch({
      api: { readIssueBody: async () => ({ body: body(true), author: "alice", updatedAt: "2026-12-06T05:00:00Z" }) as never },
      repo,
      issue: 1,
      store,
      storeKey,
      key: "o/r#1",
      lease: { current: () => fence },
      logger,
      dashboard: { noteHumanEdit: (b) => void held.push(b), isOwnBody: own },
      controls: {
        onBodyEdit: async (before, after, editor) => {
          edits.push({ before, after, editor });
          return [];
        },
      },
    });
    return { w, store, edits, held };
  };

  it("a restart: a box ticked while the bot was down (against the boxes stored) goes to the control desk", async () => {
    const { w, store, edits, held } = await watch();
    w.restore(controlBoxesOf(body(false)));
    await w.pollBody();
    expect(edits).toEqual([{ before: controlBoxesOf(body(false)), after: body(true), editor: { whileDownOnIssuePostedBy: "alice" } }]);
    expect(held).toEqual([body(true)]);
    expect((await store.issueMeta(storeKey)).boxesSeen).toBe(controlBoxesOf(body(true)));
  });

  it("the bot's own body read back is no person's edit; a later change is, by an unknown editor", async () => {
    const { w, edits } = await watch((b) => b === body(false));
    // The first read of a process with nothing stored: the body is taken as it is.
    await w.onPolledBody(body(true), "alice", null);
    // The bot's write read back, its box unticked: not a person's edit.
    await w.onPolledBody(body(false), "alice", null);
    expect(edits).toEqual([]);
    await w.onPolledBody(body(true), "alice", "t1");
    expect(edits).toEqual([{ before: body(false), after: body(true), editor: { unknownEditorOfIssuePostedBy: "alice" } }]);
    // A delivery naming no poster does not act (a poll diffs later).
    await w.onBodyDelivered(body(false), null, null);
    expect(edits).toHaveLength(1);
  });
});
