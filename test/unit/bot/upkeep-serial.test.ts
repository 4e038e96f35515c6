import { describe, expect, it, vi } from "vitest";
import { pino } from "pino";
import { META_TRUST_MS, TrackerUpkeep } from "../../../src/bot/upkeep/tracker-upkeep.ts";
import type { TrackerUpkeepDeps } from "../../../src/bot/upkeep/tracker-upkeep.ts";
import { IssueMetaCell } from "../../../src/bot/upkeep/issue-meta.ts";
import { createSqliteProjectionStore, issueKey } from "../../../src/bot-state/index.ts";
import { createProjection } from "../../../src/projection/index.ts";
import { cpBody } from "../projection/build-comments.ts";
import { FakeIssueHost } from "../../helpers/fake-issue-host.ts";

const repo = { owner: "o", repo: "r" };
const t = (s: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, s)).toISOString();

/**
 * The upkeep part alone, with only the ports it uses (a whole SessionTracker would start timers and a
 * dashboard): issue 1 with three checkpoints, in the host, the projection and the store, under a lease.
 */
async function upkeepWorld(o: { rolloverAt: number; now: () => Date }) {
  const store = createSqliteProjectionStore(":memory:");
  const api = new FakeIssueHost({ login: "bot", firstId: 101 });
  api.addIssue({ number: 1, title: "session", labels: [{ name: "session", color: "" }] });
  const policy = { trustedAuthors: new Set(["worker", "bot"]) };
  const projection = createProjection(policy);
  const add = async (i: number) => {
    const body = cpBody({ phase: "clone_complete", seq: i, id: `cp-0000000${i}` });
    const c = { id: i, author: "worker", body, createdAt: t(i), updatedAt: t(i) };
    api.addComment(1, c);
    projection.applyAll([{ type: "upsert", comment: c }]);
    await store.applyDelivery(issueKey(repo, 1), null, [{ type: "upsert", comment: c }]);
  };
  for (let i = 1; i <= 3; i++) await add(i);
  const lease = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
  if (!lease) throw new Error("no lease");
  let fence = { name: lease.name, token: lease.token };
  const logger = pino({ level: "silent" });
  const writer = { current: () => fence };
  const meta = new IssueMetaCell({ store, storeKey: issueKey(repo, 1), key: "o/r#1", lease: writer, logger, dashboard: { markDirty: () => {} } });
  const deps: TrackerUpkeepDeps = {
    api,
    repo,
    issue: 1,
    policy,
    selfLogin: "bot",
    store,
    logger,
    lease: writer,
    rollover: { title: "session", label: "session", rolloverAt: o.rolloverAt, track: async () => {} },
    compaction: { retentionMs: 0, intervalMs: 1000 },
    projection,
    meta,
    now: o.now,
    storeKey: issueKey(repo, 1),
    key: "o/r#1",
  };
  return {
    store,
    api,
    add,
    lease,
    meta,
    upkeep: new TrackerUpkeep(deps),
    fence: () => fence,
    setFence: (f: typeof fence) => {
      fence = f;
    },
  };
}

/**
 * The upkeep timer and a change both run the writer's upkeep; overlapping runs each found no successor
 * and rolled the issue over twice: two open heads (the fleet suite, seed 24 schedule 10).
 */
describe("TrackerUpkeep.maintain", () => {
  it("two calls at once roll an issue past its threshold over once", async () => {
    const { api, store, upkeep } = await upkeepWorld({ rolloverAt: 2, now: () => new Date() });
    await Promise.all([upkeep.maintain(), upkeep.maintain()]);
    const open = [...api.issues.values()].filter((i) => i.state === "open").map((i) => i.number);
    expect(open).toEqual([2]);
    expect(api.issues.size).toBe(2);
    expect((await store.issueMeta(issueKey(repo, 1))).successor).toBe(2);
  });

  it("a run with nothing due reads no meta: only after a change of lease, META_TRUST_MS, or at the threshold", async () => {
    let nowMs = Date.UTC(2026, 10, 29, 11);
    const w = await upkeepWorld({ rolloverAt: 5, now: () => new Date(nowMs) });
    const { store, meta, upkeep, add } = w;
    const reads = vi.spyOn(store, "issueMeta");
    await upkeep.maintain();
    expect(reads).toHaveBeenCalledTimes(2); // the first run: the rollover check and the refresh
    reads.mockClear();
    for (let i = 0; i < 10; i++) await upkeep.maintain();
    expect(reads).not.toHaveBeenCalled(); // below the threshold, nothing due: the meta held is current
    // Another writer records a predecessor here (the previous issue's rollover): seen once META_TRUST_MS is past.
    await store.updateIssueMeta(w.fence(), issueKey(repo, 1), { predecessor: 9 });
    nowMs += META_TRUST_MS;
    await upkeep.maintain();
    expect(reads).toHaveBeenCalled();
    expect(meta.meta.predecessor).toBe(9);
    reads.mockClear();
    await upkeep.maintain();
    expect(reads).not.toHaveBeenCalled();
    // A new lease (a takeover, or this process's lease taken again): read at once.
    await store.releaseLease(w.lease);
    const again = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
    if (!again || again.token === w.fence().token) throw new Error("no new lease");
    w.setFence({ name: again.name, token: again.token });
    await upkeep.maintain();
    expect(reads).toHaveBeenCalled();
    reads.mockClear();
    // At the threshold the rollover check reads the meta (and rolls over), with no wait.
    await add(4);
    await add(5);
    await upkeep.maintain();
    expect(reads).toHaveBeenCalled();
    expect((await store.issueMeta(issueKey(repo, 1))).successor).toBeDefined();
  });

  it("skips health compaction on a host with no attachment API, and says so once", async () => {
    const store = createSqliteProjectionStore(":memory:");
    const api = new FakeIssueHost({ login: "bot", capabilities: { attachments: false } });
    api.addIssue({ number: 1, title: "session" });
    const lease = await store.acquireLease(issueKey(repo, 1), "test", 60_000);
    if (!lease) throw new Error("no lease");
    const said: string[] = [];
    const logger = { info: (_o: unknown, m: string) => void said.push(m), warn: () => {}, debug: () => {} };
    // Only what compact() reads; the rest of the upkeep's ports are never called here.
    const deps = {
      api,
      repo,
      issue: 1,
      policy: { trustedAuthors: new Set(["bot"]) },
      store,
      logger,
      lease: { current: () => ({ name: lease.name, token: lease.token }) },
      compaction: { retentionMs: 0, intervalMs: 1000 },
      now: () => new Date(),
      storeKey: issueKey(repo, 1),
      key: "o/r#1",
    } as unknown as TrackerUpkeepDeps;
    const upkeep = new TrackerUpkeep(deps);
    expect(await upkeep.compact()).toBeNull();
    expect(await upkeep.compact()).toBeNull();
    expect(said.filter((m) => /compaction.*is off/.test(m))).toHaveLength(1);
    expect(api.calls).toEqual([]);
  });
});
