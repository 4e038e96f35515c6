import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
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

describe("SQLite watermark ids as rows (schema 3)", () => {
  it("migrates a schema-2 file's JSON ids and keeps advancing from them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-wm-"));
    const file = join(dir, "p.sqlite");
    const old = new Database(file);
    old.exec("CREATE TABLE watermarks (issue TEXT PRIMARY KEY, second INTEGER NOT NULL, ids TEXT NOT NULL)");
    old.prepare("INSERT INTO watermarks VALUES (?, ?, ?)").run("o/r#1", 1_764_658_800, "[3,7]");
    old.pragma("user_version = 2");
    old.close();
    const store = createSqliteProjectionStore(file);
    try {
      expect(await store.watermark("o/r#1")).toEqual({ updatedAtSecond: 1_764_658_800, idsInSecond: [3, 7] });
      const at = new Date(1_764_658_800_000).toISOString().replace(".000Z", "Z");
      await store.applyDelivery("o/r#1", "d-5", [{ type: "upsert", comment: { id: 5, author: "a", body: "x", createdAt: at, updatedAt: at } }]);
      expect(await store.watermark("o/r#1")).toEqual({ updatedAtSecond: 1_764_658_800, idsInSecond: [3, 5, 7] });
      const later = new Date(1_764_658_801_000).toISOString().replace(".000Z", "Z");
      await store.applyDelivery("o/r#1", "d-2", [{ type: "upsert", comment: { id: 2, author: "a", body: "y", createdAt: later, updatedAt: later } }]);
      expect(await store.watermark("o/r#1")).toEqual({ updatedAtSecond: 1_764_658_801, idsInSecond: [2] });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SQLite store file modes (issue 28.6)", () => {
  it("the database and its -wal and -shm files are 0600, new or made so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpost-mode-"));
    const file = join(dir, "p.sqlite");
    const old = new Database(file);
    old.pragma("journal_mode = WAL");
    old.exec("CREATE TABLE t (x)");
    old.close();
    chmodSync(file, 0o644); // an older bot's file
    const fresh = join(dir, "new", "p.sqlite");
    const stores = [createSqliteProjectionStore(file), createSqliteProjectionStore(fresh)];
    try {
      for (const s of stores) await s.applyDelivery("o/r#1", "d-1", []);
      for (const f of [file, `${file}-wal`, `${file}-shm`, fresh, `${fresh}-wal`, `${fresh}-shm`]) expect({ f, mode: (statSync(f).mode & 0o777).toString(8) }).toEqual({ f, mode: "600" });
    } finally {
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
