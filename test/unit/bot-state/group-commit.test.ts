import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteProjectionStore } from "../../../src/bot-state/index.ts";
import type { ProjectionStore } from "../../../src/bot-state/index.ts";
import { GroupCommit } from "../../../src/bot-state/group-commit.ts";
import type { CommentEvent } from "../../../src/projection/index.ts";

const at = (s: number) => new Date(1_764_658_800_000 + s * 1000).toISOString().replace(".000Z", "Z");
const upsert = (id: number, s: number, body = `[CHECKPOINT] ${id}`): CommentEvent => ({ type: "upsert", comment: { id, author: "agent", body, createdAt: at(0), updatedAt: at(s) } });

describe("GroupCommit", () => {
  it("runs the writes queued in one turn in one transaction, in order, and settles them after it", async () => {
    const log: string[] = [];
    const g = new GroupCommit((fn) => {
      log.push("begin");
      fn();
      log.push("commit");
    });
    const job = (n: number) => () => {
      log.push(`job ${n}`);
      return n * 10;
    };
    const settled = (n: number) => (v: number) => {
      log.push(`settled ${n}`);
      return v;
    };
    const results = Promise.all([1, 2, 3].map((n) => g.run(job(n)).then(settled(n))));
    expect(log).toEqual([]); // nothing runs before the turn ends
    expect(await results).toEqual([10, 20, 30]);
    expect(log).toEqual(["begin", "job 1", "job 2", "job 3", "commit", "settled 1", "settled 2", "settled 3"]);
  });

  it("a failed commit fails every waiting write (each one tried alone first)", async () => {
    let tries = 0;
    const g = new GroupCommit(() => {
      tries++;
      throw new Error("disk I/O error");
    });
    const settled = await Promise.allSettled([g.run(() => 1), g.run(() => 2), g.run(() => 3)]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(tries).toBe(4); // the batch, then each alone
  });

  it("one failing write fails only its own caller", async () => {
    const committed: number[] = [];
    const g = new GroupCommit((fn) => {
      const before = committed.length;
      try {
        fn();
      } catch (e) {
        committed.length = before; // a rolled-back transaction keeps nothing
        throw e;
      }
    });
    const settled = await Promise.allSettled([
      g.run(() => committed.push(1)),
      g.run(() => {
        committed.push(2);
        throw new Error("constraint failed");
      }),
      g.run(() => committed.push(3)),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(committed).toEqual([1, 3]);
  });

  it("flush() commits what is queued now", async () => {
    let commits = 0;
    const g = new GroupCommit((fn) => {
      fn();
      commits++;
    });
    const p = g.run(() => "x");
    g.flush();
    expect(commits).toBe(1);
    expect(await p).toBe("x");
    g.flush(); // an empty queue: no transaction
    expect(commits).toBe(1);
  });
});

describe("SQLite store: deliveries in one turn share a transaction", () => {
  let dir = "";
  let store: ProjectionStore | null = null;
  const open = () => {
    dir = mkdtempSync(join(tmpdir(), "checkpost-group-"));
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

  it("keeps the order of one issue's deliveries within a batch, and dedups a redelivery in the same batch", async () => {
    const { store: s } = open();
    const [newer, older, again, gone] = await Promise.all([
      s.applyDelivery("o/r#1", "d-new", [upsert(7, 20)]),
      s.applyDelivery("o/r#1", "d-old", [upsert(7, 10)]),
      s.applyDelivery("o/r#1", "d-new", [upsert(7, 20)]),
      s.applyDelivery("o/r#1", "d-del", [{ type: "delete", commentId: 7 }]),
    ]);
    expect(newer?.changed).toHaveLength(1);
    expect(older?.changed).toEqual([]); // folded after the newer version: older, not taken
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

  it("a read sees the deliveries queued before it", async () => {
    const { store: s } = open();
    const pending = s.applyDelivery("o/r#1", "d-1", [upsert(3, 5)]);
    expect((await s.comments("o/r#1")).map((c) => c.id)).toEqual([3]);
    expect(await s.commentCount("o/r#1")).toBe(1);
    await pending;
  });
});
