import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteProjectionStore } from "../../../src/bot-state/index.ts";
import type { ProjectionStore } from "../../../src/bot-state/index.ts";
import type { CommentEvent } from "../../../src/projection/index.ts";

const at = (s: number) => new Date(1_764_658_800_000 + s * 1000).toISOString().replace(".000Z", "Z");
const upsert = (id: number, s: number, body = `[CHECKPOINT] ${id}`): CommentEvent => ({ type: "upsert", comment: { id, author: "agent", body, createdAt: at(0), updatedAt: at(s) } });

describe("SQLite store: concurrent deliveries", () => {
  let dir = "";
  let store: ProjectionStore | null = null;
  const open = () => {
    dir = mkdtempSync(join(tmpdir(), "checkpost-concurrent-"));
    const file = join(dir, "p.sqlite");
    store = createSqliteProjectionStore(file);
    return { store, file };
  };
  afterEach(async () => {
    await store?.close();
    store = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it("200 concurrent deliveries are all stored, each acknowledged only once another connection sees it", async () => {
    const { store: s, file } = open();
    const other = new Database(file, { readonly: true });
    try {
      const seenAtResolve: boolean[] = [];
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          s.applyDelivery("o/r#1", `d-${i}`, [upsert(i + 1, i)]).then((r) => {
            expect(r).toEqual({ duplicate: false, changed: [upsert(i + 1, i)] });
            seenAtResolve.push(other.prepare("SELECT 1 FROM comments WHERE issue = ? AND id = ?").get("o/r#1", i + 1) !== undefined);
          }),
        ),
      );
      expect(seenAtResolve).toHaveLength(200);
      expect(seenAtResolve.every(Boolean)).toBe(true);
      expect((await s.comments("o/r#1")).map((c) => c.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(await s.watermark("o/r#1")).toEqual({ updatedAtSecond: Math.floor(Date.parse(at(199)) / 1000), idsInSecond: [200] });
    } finally {
      other.close();
    }
  });

  it("keeps the order of one issue's concurrent deliveries, and dedups a redelivery among them", async () => {
    const { store: s } = open();
    const [newer, older, again, gone] = await Promise.all([
      s.applyDelivery("o/r#1", "d-new", [upsert(7, 20)]),
      s.applyDelivery("o/r#1", "d-old", [upsert(7, 10)]),
      s.applyDelivery("o/r#1", "d-new", [upsert(7, 20)]),
      s.applyDelivery("o/r#1", "d-del", [{ type: "delete", commentId: 7 }]),
    ]);
    expect(newer?.changed).toHaveLength(1);
    expect(older?.changed).toEqual([]); // stored after the newer version: older, not taken
    expect(again).toEqual({ duplicate: true, changed: [] });
    expect(gone?.changed).toEqual([{ type: "delete", commentId: 7 }]);
    expect((await s.comments("o/r#1"))[0]).toMatchObject({ id: 7, deleted: true, updatedAt: at(20) });
  });

  it("a delivery that fails is not stored, fails alone, and its redelivery is applied", async () => {
    const { store: s } = open();
    const broken = { type: "upsert", comment: { id: 9, author: null, body: "x", createdAt: at(0), updatedAt: at(1) } } as unknown as CommentEvent;
    const settled = await Promise.allSettled([s.applyDelivery("o/r#1", "d-1", [upsert(1, 1)]), s.applyDelivery("o/r#1", "d-9", [broken]), s.applyDelivery("o/r#1", "d-2", [upsert(2, 1)])]);
    expect(settled.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await s.comments("o/r#1")).map((c) => c.id)).toEqual([1, 2]);
    expect(await s.applyDelivery("o/r#1", "d-9", [upsert(9, 1)])).toEqual({ duplicate: false, changed: [upsert(9, 1)] });
  });

  it("a read sees the deliveries called before it", async () => {
    const { store: s } = open();
    const pending = s.applyDelivery("o/r#1", "d-1", [upsert(3, 5)]);
    expect((await s.comments("o/r#1")).map((c) => c.id)).toEqual([3]);
    expect(await s.commentCount("o/r#1")).toBe(1);
    await pending;
  });
});
