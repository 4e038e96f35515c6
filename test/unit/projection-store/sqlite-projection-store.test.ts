import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteProjectionStore } from "../../../src/bot-state/index.ts";
import { projectionStoreContract } from "../../helpers/projection-store-contract.ts";

projectionStoreContract("SQLite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "checkpost-store-"));
  const file = join(dir, "store", "projection.sqlite");
  return {
    open: async (options) => createSqliteProjectionStore(file, options),
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("SQLite group commit", () => {
  const at = "2026-12-02T07:00:00Z";
  const upsert = (id: number, author = "agent") => ({ type: "upsert" as const, comment: { id, author, body: `[HEALTH] a\n${id}`, createdAt: at, updatedAt: at } });

  it("applies concurrent deliveries in one turn, each judged on its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-group-"));
    const store = createSqliteProjectionStore(join(dir, "p.sqlite"));
    try {
      // A bad event (no author: SQLite's NOT NULL) in the middle of the batch fails alone.
      const bad = { type: "upsert" as const, comment: { ...upsert(3).comment, author: null as unknown as string } };
      const results = await Promise.allSettled([
        store.applyDelivery("o/r#1", "d-1", [upsert(1)]),
        store.applyDelivery("o/r#1", "d-1", [upsert(1)]), // the same delivery again, same turn
        store.applyDelivery("o/r#1", "d-3", [bad]),
        store.applyDelivery("o/r#1", "d-4", [upsert(4)]),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      const value = (i: number) => (results[i] as PromiseFulfilledResult<{ duplicate: boolean }>).value.duplicate;
      expect([value(0), value(1), value(3)]).toEqual([false, true, false]);
      expect((await store.comments("o/r#1")).map((c) => c.id)).toEqual([1, 4]);
      // The failed delivery was rolled back whole, so a redelivery is not taken for a duplicate.
      expect((await store.applyDelivery("o/r#1", "d-3", [upsert(3)])).duplicate).toBe(false);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("close() commits what is still queued", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-group-"));
    const file = join(dir, "p.sqlite");
    const store = createSqliteProjectionStore(file);
    const applied = store.applyDelivery("o/r#1", "d-9", [upsert(9)]);
    await store.close();
    expect((await applied).duplicate).toBe(false);
    const again = createSqliteProjectionStore(file);
    try {
      expect((await again.comments("o/r#1")).map((c) => c.id)).toEqual([9]);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
