import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedOffError } from "../../src/postgres-store/fenced-off-error.ts";
import { PostgresProjectionStore } from "../../src/postgres-store/postgres-projection-store.ts";
import { StoreUnavailableError } from "../../src/postgres-store/store-unavailable-error.ts";
import type { CommentEvent } from "../../src/projection/index.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const K = "acme/widgets#1";
const up = (id: number, body: string, updatedAt = "2026-11-29T10:00:00Z"): CommentEvent => ({
  type: "upsert",
  comment: { id, author: "agent", body, createdAt: "2026-11-29T10:00:00Z", updatedAt },
});

describe.skipIf(!server.url)(`PostgreSQL store: deliveries, feed, leases${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
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

  it("a delivery id is handled once, whichever replica sees it", async () => {
    const r1 = await a.recordDelivery("d-1", K, [up(1, "one")]);
    const r2 = await b.recordDelivery("d-1", K, [up(1, "one")]);
    expect(r1).toEqual({ duplicate: false, stored: [up(1, "one")] });
    expect(r2).toEqual({ duplicate: true, stored: [] });
  });

  it("the same comment version under another delivery id stores nothing; a newer version does; an older one does not", async () => {
    expect((await a.recordDelivery("d-2", K, [up(1, "one")])).stored).toEqual([]);
    expect((await b.recordDelivery("d-3", K, [up(1, "one, edited", "2026-11-29T10:05:00Z")])).stored).toHaveLength(1);
    expect((await a.recordDelivery("d-4", K, [up(1, "one")])).stored).toEqual([]); // reordered: the older version came late
    expect((await a.appliedCounts(K)).get(1)).toBe(2);
  });

  it("a delete that arrives before its create leaves the comment deleted", async () => {
    expect((await a.recordDelivery("d-5", K, [{ type: "delete", commentId: 7 }])).stored).toHaveLength(1);
    expect((await b.recordDelivery("d-6", K, [up(7, "late create")])).stored).toEqual([]);
    const all = await a.readAll(K);
    expect(all.find((e) => e.type === "delete" && e.commentId === 7)).toBeDefined();
  });

  it("concurrent deliveries of one comment on many replicas store it once", async () => {
    const stores = [a, b, a, b, a, b];
    const results = await Promise.all(stores.map((s, i) => s.recordDelivery(`race-${i}`, K, [up(20, "raced")])));
    expect(results.filter((r) => r.stored.length === 1)).toHaveLength(1);
    expect((await a.appliedCounts(K)).get(20)).toBe(1);
  });

  it("the change feed gives each replica what others stored, and nothing twice once read", async () => {
    const K2 = "acme/widgets#2";
    const first = await b.readChanges(K2, null);
    expect(first.events).toEqual([]);
    await a.storeComments(K2, [up(100, "x"), up(101, "y")]);
    const second = await b.readChanges(K2, first.cursor);
    expect(second.events.map((e) => (e.type === "upsert" ? e.comment.id : -1)).sort()).toEqual([100, 101]);
    const third = await b.readChanges(K2, second.cursor);
    expect(third.events).toEqual([]);
    await a.storeComments(K2, [{ type: "delete", commentId: 100 }]);
    expect((await b.readChanges(K2, third.cursor)).events).toEqual([{ type: "delete", commentId: 100 }]);
  });

  it("the feed does not skip a transaction that commits after a later one", async () => {
    const K3 = "acme/widgets#3";
    const start = await b.readChanges(K3, null);
    // A slow writer: holds an open transaction that took its id first.
    const pg = (await import("pg")).default;
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    await slow.query("BEGIN");
    await slow.query(
      "INSERT INTO checkpost_comments (issue_key, comment_id, author, body, created_at, updated_at, updated_ms, body_hash) VALUES ($1, 300, 'agent', 'slow', '2026-11-29T10:00:00Z', '2026-11-29T10:00:00Z', 0, 'h')",
      [K3],
    );
    await a.storeComments(K3, [up(301, "fast")]);
    const mid = await b.readChanges(K3, start.cursor);
    expect(mid.events.map((e) => (e.type === "upsert" ? e.comment.id : -1))).toEqual([301]);
    await slow.query("COMMIT");
    await slow.end();
    const after = await b.readChanges(K3, mid.cursor);
    expect(after.events.map((e) => (e.type === "upsert" ? e.comment.id : -1))).toContain(300);
  });

  it("one holder per lease; a deposed holder's writes are refused; tokens only grow", async () => {
    const L = "acme/widgets#9";
    const first = await a.acquireLease(L, "replica-a", 60_000);
    expect(first?.token).toBe(1);
    expect(await b.acquireLease(L, "replica-b", 60_000)).toBeNull();
    let wrote = 0;
    await a.fencedWrite(first!, "dashboard", async () => void wrote++);
    await a.writeState(first!, "poll", { fromMs: 5 });
    // Expire a's lease (a paused process), b takes over.
    const renewed = await a.renewLease(first!, 1);
    expect(renewed).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    const second = await b.acquireLease(L, "replica-b", 60_000);
    expect(second?.token).toBe(2);
    await expect(a.fencedWrite(first!, "dashboard", async () => void wrote++)).rejects.toBeInstanceOf(FencedOffError);
    await expect(a.writeState(first!, "poll", { fromMs: 1 })).rejects.toBeInstanceOf(FencedOffError);
    expect(await a.renewLease(first!, 60_000)).toBeNull();
    expect(wrote).toBe(1);
    expect(await b.readState(L, "poll")).toEqual({ fromMs: 5 });
    await b.writeState(second!, "poll", { fromMs: 9 });
    expect(await a.readState(L, "poll")).toEqual({ fromMs: 9 });
    // A release lets the next holder in at once, with a new token.
    await b.releaseLease(second!);
    expect((await a.acquireLease(L, "replica-a", 60_000))?.token).toBe(3);
    const log = await a.writeLog(L);
    expect(log.map((w) => w.token)).toEqual([1]);
    expect(log[0]?.endedAt).not.toBeNull();
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

  it("an unreachable server is StoreUnavailableError, with the variable to check", async () => {
    const bad = url.replace(/:\d+\//, ":1/");
    await expect(PostgresProjectionStore.open({ url: bad })).rejects.toThrow(StoreUnavailableError);
    await expect(PostgresProjectionStore.open({ url: bad })).rejects.toThrow(/CHECKPOST_DATABASE_URL/);
  });
});
