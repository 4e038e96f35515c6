import { describe, expect, it } from "vitest";
import pino from "pino";
import { ReplicaCoordinator } from "../../../src/bot/replicas/replica-coordinator.ts";
import type { BotMetrics } from "../../../src/bot/bot-metrics.ts";
import type { WatchedIssue } from "../../../src/bot/tracker-ports.ts";
import type { PostgresProjectionStore } from "../../../src/bot-state/postgres/postgres-projection-store.ts";
import { ChangesUnheardError } from "../../../src/bot-state/index.ts";

/** Just what the coordinator reads of a tracker: whether this replica leads it, and its successor. */
const tracker = (leads: boolean, successor?: number) => ({ successor, lease: { current: () => (leads ? { token: 1 } : null) } }) as unknown as WatchedIssue;

describe("ReplicaCoordinator: lease share", () => {
  it("a rolled-over issue does not count toward the share, so the leader of a rollover may take its successor", () => {
    const c = new ReplicaCoordinator({} as PostgresProjectionStore, { replicaId: "a", feedIntervalMs: 50, leaseTtlMs: 1500, logger: pino({ level: "silent" }), metrics: {} as BotMetrics });
    // Two live replicas (the heartbeat's count), this one leads the closed #1; #2 is its new successor, led by nobody.
    (c as unknown as { liveReplicas: number }).liveReplicas = 2;
    c.attach(() => [tracker(true, 2), tracker(false)]);
    expect(c.share()).toBe(1);
    expect(c.mayTake()).toBe(true);
    // Leading an open issue already: at its share.
    c.attach(() => [tracker(true, 2), tracker(true), tracker(false)]);
    expect(c.mayTake()).toBe(false);
  });
});

describe("ReplicaCoordinator: read-through for a follower's answer", () => {
  it("folds what the leader stored since the feed's last round, once, even beside a feed round", async () => {
    const stored: { id: number }[] = [];
    let reads = 0;
    const store = {
      feedCursor: async () => 0,
      readChanges: async (_key: string, cursor: number) => {
        reads++;
        await new Promise((r) => setTimeout(r, 5));
        const events = stored.filter((e) => e.id > cursor);
        return { events, cursor: Math.max(cursor, ...stored.map((e) => e.id)) };
      },
    } as unknown as PostgresProjectionStore;
    const folded: number[] = [];
    const t = {
      storeKey: "o/r#1",
      successor: undefined,
      fold: (events: { id: number }[]) => void folded.push(...events.map((e) => e.id)),
      lease: { current: () => null },
    } as unknown as WatchedIssue;
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 60_000, leaseTtlMs: 1500, logger: pino({ level: "silent" }), metrics: {} as BotMetrics });
    c.attach(() => [t]);
    await c.beforeStart(t);
    stored.push({ id: 1 }, { id: 2 });
    // The leader stored two events; the feed's next round is a minute away: the answer reads them now.
    await Promise.all([c.readThrough(t), c.followFeed(), c.readThrough(t)]);
    expect(folded).toEqual([1, 2]);
    expect(reads).toBe(3);
  });
});

describe("ReplicaCoordinator: a follower learns of a rollover from the store", () => {
  it("asks each issue it does not lead for its successor, until the successor is watched here too", async () => {
    const store = { heartbeat: async () => 2 } as unknown as PostgresProjectionStore;
    const metrics = { leasesHeld: { set: () => {} }, leaseChanges: { inc: () => {} } } as unknown as BotMetrics;
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 50, leaseTtlMs: 1500, logger: pino({ level: "silent" }), metrics });
    const asked: number[] = [];
    const watched = [1];
    const mk = (issue: number, leads: boolean, successor?: number) =>
      ({
        successor,
        followRollover: async () => {
          asked.push(issue);
          if (issue === 1) watched.push(2);
        },
        repo: { owner: "o", repo: "r" },
        issue,
        lease: { current: () => (leads ? { token: 1 } : null) },
      }) as unknown as WatchedIssue;
    c.attach(() => watched.map((n) => (n === 1 ? mk(1, false, watched.includes(2) ? 2 : undefined) : mk(n, true))));
    await c.balance();
    expect(asked).toEqual([1]); // #1 is led by another replica: asked; it names #2, now watched here
    asked.length = 0;
    await c.balance();
    expect(asked).toEqual([]); // #1's successor is watched: not asked again; #2 is led here
  });
});

describe("ReplicaCoordinator: woken by change notifications", () => {
  const follower = (folded: number[]) =>
    ({
      storeKey: "o/r#1",
      successor: undefined,
      followRollover: async () => {},
      fold: (events: { id: number }[]) => void folded.push(...events.map((e) => e.id)),
      lease: { current: () => null },
    }) as unknown as WatchedIssue;
  const metrics = { leasesHeld: { set: () => {} }, leaseChanges: { inc: () => {} } } as unknown as BotMetrics;

  it("reads the feed when another replica's change is notified, a burst costing at most two reads", async () => {
    const stored: { id: number }[] = [];
    let reads = 0;
    let notify: (issue: string) => void = () => {};
    const waiters: { n: number; done: () => void }[] = [];
    /** Resolves once `n` feed reads have finished in all. */
    const readsDone = (n: number) => new Promise<void>((done) => (reads >= n ? done() : waiters.push({ n, done })));
    const store = {
      heartbeat: async () => 2,
      forgetReplica: async () => {},
      feedCursor: async () => 0,
      listenChanges: async (onChange: (issue: string) => void) => {
        notify = onChange;
        return { close: async () => {} };
      },
      readChanges: async (_key: string, cursor: number) => {
        await new Promise((r) => setImmediate(r));
        const events = stored.filter((e) => e.id > cursor);
        reads++;
        for (const w of waiters) if (reads >= w.n) w.done();
        return { events, cursor: Math.max(cursor, ...stored.map((e) => e.id)) };
      },
    } as unknown as PostgresProjectionStore;
    const folded: number[] = [];
    const t = follower(folded);
    // A feed poll a minute apart: only a notification can bring the change in this test.
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 60_000, leaseTtlMs: 600_000, logger: pino({ level: "silent" }), metrics });
    c.attach(() => [t]);
    await c.beforeStart(t);
    await c.balance(); // the heartbeat round LISTENs, then folds one round of what it missed
    await readsDone(1);
    expect(c.wokenByNotify).toBe(true);
    stored.push({ id: 1 }, { id: 2 });
    for (let i = 0; i < 10; i++) notify("o/r#1");
    notify("o/r#99"); // another issue: not watched here, nothing to read
    await readsDone(2);
    await new Promise((r) => setImmediate(r));
    await c.stop();
    expect(reads).toBe(2); // the first round, then one read for the whole burst
    expect(folded).toEqual([1, 2]);
  });

  it("skips its own changes to issues it leads (folded by the tracker's apply), not to those it follows (a late carry)", async () => {
    let reads: string[] = [];
    let notify: (issue: string, fromSelf?: boolean) => void = () => {};
    const store = {
      heartbeat: async () => 1,
      forgetReplica: async () => {},
      feedCursor: async () => 0,
      listenChanges: async (onChange: (issue: string, fromSelf?: boolean) => void) => {
        notify = onChange;
        return { close: async () => {} };
      },
      readChanges: async (key: string, cursor: number) => {
        reads.push(key);
        return { events: key === "o/r#1" ? [{ id: 7 }] : [], cursor };
      },
    } as unknown as PostgresProjectionStore;
    const folded: number[] = [];
    // #1: a closed predecessor this replica follows, whose comments its own late carry (carryLateFrom) wrote.
    const predecessor = follower(folded);
    const led = { ...follower([]), storeKey: "o/r#2", lease: { current: () => ({ name: "o/r#2", token: 1 }) } } as unknown as WatchedIssue;
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 60_000, leaseTtlMs: 600_000, logger: pino({ level: "silent" }), metrics });
    c.attach(() => [predecessor, led]);
    await c.beforeStart(predecessor);
    await c.beforeStart(led);
    await c.balance();
    expect(await c.listeningSettled()).toBe(true);
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    await settle();
    reads = [];
    notify("o/r#2", true); // this process's own write to an issue it leads: its tracker folded it
    await settle();
    expect(reads).toEqual([]);
    notify("o/r#2", false); // another replica's write to it: read
    await settle();
    expect(reads).toEqual(["o/r#2"]);
    notify("o/r#1", true); // this process's own write to an issue it does not lead (the late carry): read and folded
    await settle();
    expect(reads).toEqual(["o/r#2", "o/r#1"]);
    expect(folded).toContain(7);
    await c.stop();
  });

  it("where notifications are never heard (a transaction-pooling proxy), says so once and keeps polling", async () => {
    let tries = 0;
    const store = {
      heartbeat: async () => 1,
      listenChanges: async () => {
        tries++;
        throw new ChangesUnheardError("a probe NOTIFY did not come back");
      },
    } as unknown as PostgresProjectionStore;
    const warnings: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 60_000, leaseTtlMs: 600_000, logger, metrics });
    c.attach(() => []);
    await c.balance();
    await new Promise((r) => setImmediate(r));
    await c.balance();
    await new Promise((r) => setImmediate(r));
    expect(tries).toBe(1);
    expect(c.wokenByNotify).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/transaction-pooling proxy.*CHECKPOST_FEED_INTERVAL_MS/);
  });

  it("a dropped LISTEN connection is taken up again at the next heartbeat", async () => {
    let tries = 0;
    let lose: (e: Error) => void = () => {};
    const store = {
      heartbeat: async () => 1,
      forgetReplica: async () => {},
      feedCursor: async () => 0,
      readChanges: async () => ({ events: [], cursor: 0 }),
      listenChanges: async (_on: unknown, onLost: (e: Error) => void) => {
        tries++;
        lose = onLost;
        return { close: async () => {} };
      },
    } as unknown as PostgresProjectionStore;
    const c = new ReplicaCoordinator(store, { replicaId: "b", feedIntervalMs: 60_000, leaseTtlMs: 600_000, logger: pino({ level: "silent" }), metrics });
    c.attach(() => []);
    await c.balance();
    await new Promise((r) => setImmediate(r));
    expect(c.wokenByNotify).toBe(true);
    lose(new Error("connection reset"));
    expect(c.wokenByNotify).toBe(false);
    await c.balance();
    await new Promise((r) => setImmediate(r));
    expect(tries).toBe(2);
    expect(c.wokenByNotify).toBe(true);
    await c.stop();
  });
});
