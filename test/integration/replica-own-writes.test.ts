// A replica on PostgreSQL does not read back the comment rows it wrote itself to an issue it leads
// (its tracker's apply folded them), yet still folds what its own process wrote to an issue it only
// follows: the late carry of a closed predecessor (carryLateFrom) writes that issue's comments.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { PostgresProjectionStore } from "../../src/bot-state/postgres/postgres-projection-store.ts";
import { ReplicaCoordinator } from "../../src/bot/replicas/replica-coordinator.ts";
import type { BotMetrics } from "../../src/bot/bot-metrics.ts";
import type { WatchedIssue } from "../../src/bot/tracker-ports.ts";
import type { CommentEvent } from "../../src/projection/index.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();
const up = (id: number, body: string): CommentEvent => ({
  type: "upsert",
  comment: { id, author: "agent", body, createdAt: "2026-11-29T10:00:00Z", updatedAt: "2026-11-29T10:00:00Z" },
});
const metrics = { leasesHeld: { set: () => {} }, leaseChanges: { inc: () => {} } } as unknown as BotMetrics;

describe.skipIf(!server.url)(`a replica's own writes${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let a: PostgresProjectionStore;
  let b: PostgresProjectionStore;
  beforeAll(async () => {
    const url = await server.freshDatabase();
    [a, b] = await Promise.all([PostgresProjectionStore.open({ url }), PostgresProjectionStore.open({ url })]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("are not read back for an issue it leads; a late carry's rows on an issue it follows are folded at once", async () => {
    const folded = new Map<string, number[]>();
    const watched = (storeKey: string, leads: boolean) =>
      ({
        storeKey,
        successor: undefined,
        followRollover: async () => {},
        fold: (events: CommentEvent[]) => void folded.set(storeKey, [...(folded.get(storeKey) ?? []), ...events.map((e) => (e.type === "upsert" ? e.comment.id : -e.commentId))]),
        lease: { current: () => (leads ? { name: storeKey, token: 1 } : null) },
      }) as unknown as WatchedIssue;
    const head = watched("acme/own#2", true);
    const predecessor = watched("acme/own#1", false);
    const reads = vi.spyOn(a, "readChanges");
    // A feed poll an hour apart: within this test only a notification brings a change in.
    const c = new ReplicaCoordinator(a, { replicaId: "own-a", feedIntervalMs: 3_600_000, leaseTtlMs: 3_600_000, logger: pino({ level: "silent" }), metrics });
    c.attach(() => [head, predecessor]);
    await c.beforeStart(head);
    await c.beforeStart(predecessor);
    await c.balance();
    expect(await c.listeningSettled()).toBe(true);
    await vi.waitFor(() => expect(reads).toHaveBeenCalledTimes(2)); // the round after LISTEN: one read per issue
    reads.mockClear();

    // The leader's own write (what its tracker's apply stores and folds), then another replica's.
    await a.applyDelivery(head.storeKey, "own-1", [up(501, "[CHECKPOINT] mine")]);
    await b.applyDelivery(head.storeKey, "own-2", [up(502, "[CHECKPOINT] theirs")]);
    await vi.waitFor(() => expect(folded.get(head.storeKey)).toContain(502));
    // Notifications arrive in commit order: the own one came first and was skipped, the other's was read.
    expect(reads.mock.calls.map(([k]) => k)).toEqual([head.storeKey]);

    // The late carry: this process writes the closed predecessor's comments (not through its tracker).
    await a.applyDelivery(predecessor.storeKey, null, [up(401, "[CHECKPOINT] late save")]);
    await vi.waitFor(() => expect(folded.get(predecessor.storeKey)).toEqual([401]));
    await c.stop();
  });
});
