// What only a shared PostgreSQL store must do (two pools = two replicas): the
// ProjectionStore contract itself runs in projection-store-contract tests.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { PostgresProjectionStore } from "../../src/bot-state/postgres/postgres-projection-store.ts";
import { StoreUnavailableError } from "../../src/bot-state/postgres/store-unavailable-error.ts";
import { StaleLeaseError } from "../../src/bot-state/index.ts";
import type { AgentEntry, CommentEvent } from "../../src/projection/index.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const K = "acme/widgets#1";
const up = (id: number, body: string, updatedAt = "2026-11-29T10:00:00Z"): CommentEvent => ({
  type: "upsert",
  comment: { id, author: "agent", body, createdAt: "2026-11-29T10:00:00Z", updatedAt },
});
const ids = (events: CommentEvent[]) => events.map((e) => (e.type === "upsert" ? e.comment.id : -e.commentId));

describe.skipIf(!server.url)(`PostgreSQL store shared by replicas${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let a: PostgresProjectionStore;
  let b: PostgresProjectionStore;
  let url = "";
  beforeAll(async () => {
    url = await server.freshDatabase();
    [a, b] = await Promise.all([PostgresProjectionStore.open({ url }), PostgresProjectionStore.open({ url })]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("a delivery id is applied once, whichever replica sees it", async () => {
    const r1 = await a.applyDelivery(K, "d-1", [up(1, "[CHECKPOINT] one")]);
    const r2 = await b.applyDelivery(K, "d-1", [up(1, "[CHECKPOINT] one")]);
    expect(r1).toEqual({ duplicate: false, changed: [up(1, "[CHECKPOINT] one")] });
    expect(r2).toEqual({ duplicate: true, changed: [] });
  });

  it("the same comment delivered concurrently to many replicas under different ids is stored once", async () => {
    const stores = [a, b, a, b, a, b];
    const results = await Promise.all(stores.map((s, i) => s.applyDelivery(K, `race-${i}`, [up(20, "raced")])));
    expect(results.filter((r) => r.changed.length === 1)).toHaveLength(1);
    expect((await a.appliedCounts(K)).get(20)).toBe(1);
  });

  it("overlapping reconciles from two replicas in opposite orders neither deadlock nor double-apply", async () => {
    const list = Array.from({ length: 50 }, (_, i) => up(1000 + i, `c${i}`));
    const [x, y] = await Promise.all([a.applyDelivery(K, null, list), b.applyDelivery(K, null, [...list].reverse())]);
    expect(x.changed.length + y.changed.length).toBe(50);
    const counts = await a.appliedCounts(K);
    expect(list.every((e) => e.type === "upsert" && counts.get(e.comment.id) === 1)).toBe(true);
  });

  it("a webhook's new comment is stored in one statement (delivery, comment, watermark); an edit takes the transaction with its row lock", async () => {
    const K5 = "acme/ingest#1";
    const spy = vi.spyOn(pg.Client.prototype, "query");
    try {
      expect((await a.applyDelivery(K5, "i-1", [up(7000, "[CHECKPOINT] new")])).changed).toHaveLength(1);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(await b.watermark(K5)).toEqual({ updatedAtSecond: Date.parse("2026-11-29T10:00:00Z") / 1000, idsInSecond: [7000] });
      spy.mockClear();
      // Redelivered: the one statement inserts nothing, the transaction finds the delivery id.
      expect(await a.applyDelivery(K5, "i-1", [up(7000, "[CHECKPOINT] new")])).toEqual({ duplicate: true, changed: [] });
      spy.mockClear();
      // An edit: the one statement finds the row (nothing written), then BEGIN, delivery, insert, lock, update, watermark, COMMIT.
      const edit = up(7000, "[CHECKPOINT] edited", "2026-11-29T10:00:07Z");
      expect((await a.applyDelivery(K5, "i-2", [edit])).changed).toEqual([edit]);
      expect(spy).toHaveBeenCalledTimes(8);
      spy.mockClear();
      // Same second, another id: the ids of that second grow; an older second leaves the watermark alone.
      await a.applyDelivery(K5, "i-3", [up(7001, "x", "2026-11-29T10:00:07Z")]);
      await a.applyDelivery(K5, "i-4", [up(7002, "y", "2026-11-29T09:00:00Z")]);
      expect(await b.watermark(K5)).toEqual({ updatedAtSecond: Date.parse("2026-11-29T10:00:07Z") / 1000, idsInSecond: [7000, 7001] });
      await a.applyDelivery(K5, "i-5", [up(7003, "z", "2026-11-29T10:00:08Z")]);
      expect(await b.watermark(K5)).toEqual({ updatedAtSecond: Date.parse("2026-11-29T10:00:08Z") / 1000, idsInSecond: [7003] });
    } finally {
      spy.mockRestore();
    }
  });

  it("concurrent new comments are written together (group commit): every one stored, each issue's watermark advanced once per batch", async () => {
    const [K6, K7] = ["acme/batch#1", "acme/batch#2"];
    const at = (s: number) => `2026-11-29T11:00:0${s}Z`;
    const spy = vi.spyOn(pg.Client.prototype, "query");
    try {
      const sent = Array.from({ length: 30 }, (_, i) => ({ issue: i % 2 ? K7 : K6, id: 8000 + i, second: i % 3 }));
      const results = await Promise.all(sent.map((x) => a.applyDelivery(x.issue, `g-${x.id}`, [up(x.id, `[CHECKPOINT] ${x.id}`, at(x.second))])));
      expect(results.every((r) => !r.duplicate && r.changed.length === 1)).toBe(true);
      const batched = spy.mock.calls.filter(([text]) => typeof text === "string" && text.includes("WITH input AS"));
      // The first went alone; the 29 that arrived while it was in flight, in one more.
      expect(batched).toHaveLength(2);
      expect(spy).toHaveBeenCalledTimes(2);
      for (const k of [K6, K7]) {
        const mine = sent.filter((x) => x.issue === k);
        expect((await b.comments(k)).map((c) => c.id)).toEqual(mine.map((x) => x.id));
        expect(await b.watermark(k)).toEqual({ updatedAtSecond: Date.parse(at(2)) / 1000, idsInSecond: mine.filter((x) => x.second === 2).map((x) => x.id) });
      }
      // Redelivered together with new ones: the new are stored, the repeats are duplicates.
      const again = await Promise.all([
        ...sent.slice(0, 3).map((x) => a.applyDelivery(x.issue, `g-${x.id}`, [up(x.id, `[CHECKPOINT] ${x.id}`, at(x.second))])),
        a.applyDelivery(K6, "g-new", [up(8100, "n", at(1))]),
      ]);
      expect(again.map((r) => r.duplicate)).toEqual([true, true, true, false]);
      expect((await a.appliedCounts(K6)).get(8000)).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("a batch the server refuses fails only the delivery it cannot take; one that cannot reach the server fails every delivery waiting on it", async () => {
    const K8 = "acme/batch#3";
    // The first goes alone; the next four wait for it and go together. A NUL byte is refused by PostgreSQL's
    // text type: that batch fails, and its four are written again each alone, so only the bad one fails.
    const results = await Promise.allSettled([8200, 8201, 8202, 8203, 8204].map((id) => a.applyDelivery(K8, `f-${id}`, [up(id, id === 8202 ? "[CHECKPOINT] bad \u0000 byte" : "[CHECKPOINT] ok")])));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((await b.comments(K8)).map((c) => c.id)).toEqual([8200, 8201, 8203, 8204]);
    // Without a server: the first fails alone, the rest together, each with the error; nothing acknowledged.
    const gone = await PostgresProjectionStore.open({ url });
    await gone.close();
    const lost = await Promise.allSettled([8300, 8301, 8302].map((id) => gone.applyDelivery(K8, `l-${id}`, [up(id, "x")])));
    expect(lost.every((r) => r.status === "rejected" && r.reason instanceof StoreUnavailableError)).toBe(true);
    expect((await b.comments(K8)).map((c) => c.id)).toEqual([8200, 8201, 8203, 8204]);
  });

  it("changed entries alone are one statement, as are removed ones alone; both together one transaction", async () => {
    const KE = "acme/entries#1";
    const e = (agent: string): AgentEntry => ({
      agent,
      session: "s",
      latest: { commentId: 1, phase: "p", timestamp: null, createdAt: "2026-11-29T10:00:00Z", data: {} },
      maxEpoch: 0,
      counts: { checkpoints: 1, health: 0, invalid: 0, untrusted: 0 },
      health: null,
      lastSignalAt: "2026-11-29T10:00:00Z",
      intervalsMs: [],
    });
    const spy = vi.spyOn(pg.Client.prototype, "query");
    try {
      await a.putEntries(KE, [e("x"), e("y")]);
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockClear();
      await a.putEntries(KE, [], [{ agent: "x", session: "s" }]);
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockClear();
      await a.putEntries(KE, [e("z")], [{ agent: "y", session: "s" }]);
      expect(spy).toHaveBeenCalledTimes(4); // BEGIN, delete, upsert, COMMIT
    } finally {
      spy.mockRestore();
    }
    expect((await b.entries(KE)).map((x) => x.agent)).toEqual(["z"]);
  });

  it("a first read of 1,200 comments is stored in multi-row INSERTs; a second read changes only what was edited", async () => {
    const K4 = "acme/bulk#1";
    const list = Array.from({ length: 1200 }, (_, i) => up(5000 + i, `c${i}`));
    expect((await a.applyDelivery(K4, null, list)).changed).toHaveLength(1200);
    const again = list.map((e, i) => (i % 400 === 7 && e.type === "upsert" ? up(e.comment.id, "edited", "2026-11-29T10:05:00Z") : e));
    const second = await b.applyDelivery(K4, null, again);
    expect(ids(second.changed)).toEqual([5007, 5407, 5807]);
    expect(await a.commentCount(K4)).toBe(1200);
    const counts = await a.appliedCounts(K4);
    expect(counts.get(5007)).toBe(2);
    expect(counts.get(5008)).toBe(1);
  });

  it("the change feed gives each replica what others stored, and nothing more once read", async () => {
    const K2 = "acme/widgets#2";
    const first = await b.readChanges(K2, null);
    expect(first.events).toEqual([]);
    await a.applyDelivery(K2, null, [up(100, "x"), up(101, "y")]);
    const second = await b.readChanges(K2, first.cursor);
    expect(ids(second.events).sort()).toEqual([100, 101]);
    const third = await b.readChanges(K2, second.cursor);
    expect(third.events).toEqual([]);
    await a.applyDelivery(K2, null, [{ type: "delete", commentId: 100 }]);
    // a deleted row replays as its last version then the delete (the fold then knows what was deleted)
    expect(ids((await b.readChanges(K2, third.cursor)).events)).toEqual([100, -100]);
  });

  it("the feed does not skip a transaction that commits after a later one", async () => {
    const K3 = "acme/widgets#3";
    const start = await b.readChanges(K3, null);
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    await slow.query("BEGIN");
    await slow.query(
      "INSERT INTO checkpost_comments (issue_key, comment_id, author, created_at, updated_at, updated_ms, hash) VALUES ($1, 300, 'agent', '2026-11-29T10:00:00Z', '2026-11-29T10:00:00Z', 0, 'h')",
      [K3],
    );
    await a.applyDelivery(K3, null, [up(301, "fast")]);
    const mid = await b.readChanges(K3, start.cursor);
    expect(ids(mid.events)).toEqual([301]);
    await slow.query("COMMIT");
    await slow.end();
    const after = await b.readChanges(K3, mid.cursor);
    expect(ids(after.events)).toContain(300);
  });

  it("a comment seen with two bodies replays so a fresh fold marks it edited", async () => {
    const K4 = "acme/widgets#4";
    await a.applyDelivery(K4, null, [up(400, "[CHECKPOINT] first")]);
    await b.applyDelivery(K4, null, [up(400, "[CHECKPOINT] second")]); // same time, other body
    const stored = (await a.comments(K4))[0];
    expect(stored?.multi).toBe(true);
    const events = (await b.readChanges(K4, null)).events;
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ type: "upsert", comment: { id: 400 } });
  });

  it("one holder per lease across replicas; a deposed holder's writes are refused", async () => {
    const L = "acme/widgets#9";
    const first = await a.acquireLease(L, "replica-a", 60_000);
    expect(first).not.toBeNull();
    expect(await b.acquireLease(L, "replica-b", 60_000)).toBeNull();
    let wrote = 0;
    await a.fencedWrite(first!, "dashboard", async () => void wrote++);
    // a's lease runs out (a paused process) and b takes over
    await a.renewLease(first!, 1);
    await new Promise((r) => setTimeout(r, 5));
    const second = await b.acquireLease(L, "replica-b", 60_000);
    expect(second!.token).toBeGreaterThan(first!.token);
    await expect(a.fencedWrite(first!, "dashboard", async () => void wrote++)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(a.recordAlert(first!, L, "k")).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await a.renewLease(first!, 60_000)).toBeNull();
    expect(wrote).toBe(1);
    await b.fencedWrite(second!, "dashboard", async () => undefined);
    const log = await a.writeLog(L);
    expect(log.map((w) => [w.holder, w.token])).toEqual([
      ["replica-a", first!.token],
      ["replica-b", second!.token],
    ]);
    expect(log.every((w) => w.endedMs !== null && w.endedMs >= w.startedMs)).toBe(true);
  });

  it("an expired lease cannot begin a write, even before anyone takes it over", async () => {
    const L = "acme/widgets#11";
    const held = (await a.acquireLease(L, "a", 1))!;
    await new Promise((r) => setTimeout(r, 5));
    await expect(a.fencedWrite(held, "dashboard", async () => 1)).rejects.toBeInstanceOf(StaleLeaseError);
  });

  it("many replicas racing for a free lease: exactly one wins", async () => {
    const L = "acme/widgets#10";
    const got = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).acquireLease(L, `r${i}`, 60_000)));
    expect(got.filter(Boolean)).toHaveLength(1);
  });

  it("heartbeat counts live replicas", async () => {
    await a.heartbeat("hb-a", 60_000);
    expect(await b.heartbeat("hb-b", 60_000)).toBeGreaterThanOrEqual(2);
  });

  it("a replica listening hears each commit that changed an issue's comments, once per transaction, and nothing for a duplicate", async () => {
    const KN = "acme/notify#1";
    const heard: string[] = [];
    let next: (() => void) | null = null;
    const l = await a.listenChanges(
      (issue) => {
        heard.push(issue);
        next?.();
      },
      () => {},
    );
    try {
      const arrival = () => new Promise<void>((r) => (next = r));
      let got = arrival();
      // A bulk read of 30 comments (multi-row INSERTs) then an edit, each from the other replica.
      await b.applyDelivery(
        KN,
        null,
        Array.from({ length: 30 }, (_, i) => up(9000 + i, `n${i}`)),
      );
      await got;
      got = arrival();
      await b.applyDelivery(KN, "n-edit", [up(9000, "n0 edited", "2026-11-29T10:00:09Z")]);
      await got;
      // A duplicate delivery and an older copy of the same body change no row: no notification. The probe below
      // goes through the same channel after them, so if either had notified it would be heard first.
      await b.applyDelivery(KN, "n-edit", [up(9000, "n0 edited", "2026-11-29T10:00:09Z")]);
      await b.applyDelivery(KN, "n-old", [up(9001, "n1", "2026-11-29T09:00:00Z")]);
      got = arrival();
      await b.applyDelivery("acme/notify#2", "n-other", [up(9100, "other issue")]);
      await got;
      expect(heard).toEqual([KN, KN, "acme/notify#2"]);
    } finally {
      await l.close();
    }
  });

  it("a notification says whether this store's own connections committed the change (the replica skips reading back its own writes)", async () => {
    const KS = "acme/notify-self#1";
    const heard: [string, boolean][] = [];
    let next: (() => void) | null = null;
    const l = await a.listenChanges(
      (issue, fromSelf) => {
        heard.push([issue, fromSelf]);
        next?.();
      },
      () => {},
    );
    try {
      const arrival = () => new Promise<void>((r) => (next = r));
      let got = arrival();
      await a.applyDelivery(KS, "s-1", [up(9200, "mine")]); // through a's pool
      await got;
      got = arrival();
      await b.applyDelivery(KS, "s-2", [up(9201, "theirs")]); // through the other replica's pool
      await got;
      got = arrival();
      // Several at once through a's pool: more of its connections, each known as its own.
      await Promise.all([9202, 9203, 9204].map((id) => a.applyDelivery(`acme/notify-self#${id}`, `s-${id}`, [up(id, "mine too")])));
      await got;
      await vi.waitFor(() => expect(heard.length).toBe(5));
      expect(heard[0]).toEqual([KS, true]);
      expect(heard[1]).toEqual([KS, false]);
      expect(heard.slice(2).every(([, self]) => self)).toBe(true);
    } finally {
      await l.close();
    }
  });

  it("an unreachable server is StoreUnavailableError naming the variable to check", async () => {
    const bad = url.replace(/:\d+\//, ":1/");
    const e = await PostgresProjectionStore.open({ url: bad }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreUnavailableError);
    expect((e as Error).message).toMatch(/CHECKPOST_DATABASE_URL/);
  });
});
