// `checkpost snapshot save --sqlite`: a consistent online copy while another process writes (issue 30, item 2).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSqlite } from "../../src/snapshot/sqlite-backup.ts";
import { snapshotWorld } from "../helpers/snapshot-world.ts";
import type { SnapshotWorld } from "../helpers/snapshot-world.ts";

let w: SnapshotWorld | undefined;
let writer: ChildProcess | undefined;
afterEach(async () => {
  writer?.kill("SIGKILL");
  writer = undefined;
  await w?.close();
  w = undefined;
});

const root = new URL("../..", import.meta.url).pathname;

/** A process that writes to the database without pause (WAL mode, 50 rows per transaction), saying "ready" once 200 rows are in. */
function startWriter(db: string): Promise<ChildProcess> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1]);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const ins = db.prepare("INSERT INTO turns (body) VALUES (?)");
    let n = 0;
    const batch = db.transaction(() => { for (let i = 0; i < 50; i++) ins.run("turn " + (n++) + " " + "y".repeat(200)); });
    const step = () => { batch(); if (n === 200) process.stdout.write("ready\\n"); setImmediate(step); };
    step();`;
  const child = spawn(process.execPath, ["-e", script, db], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`writer exited with ${code}`)));
  });
}

describe("checkpost snapshot --sqlite", () => {
  it("copies a database in one step while its writer runs; the restored copy passes quick_check", async () => {
    w = await snapshotWorld();
    const db = join(w.work, "session.db");
    writer = await startWriter(db);
    const s = await w.cli(["snapshot", "save", "--agent", "worker", "--session", "s1", "--sqlite", "session.db"]);
    expect(s.code, s.err).toBe(0);
    expect(s.json()).toMatchObject({ changed: true, files: 1 });
    // The writer was still writing when the copy was taken.
    expect(writer.exitCode).toBeNull();
    writer.kill("SIGKILL");
    await once(writer, "exit");
    const dir = mkdtempSync(join(tmpdir(), "checkpost-into-"));
    const r = await w.cli(["snapshot", "restore", "--agent", "worker", "--session", "s1", "--into", dir]);
    expect(r.code, r.err).toBe(0);
    const Database = loadSqlite();
    const copy = new Database(join(dir, "session.db"), { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma("quick_check", { simple: true })).toBe("ok");
      const count = (copy.prepare("SELECT count(*) AS n FROM turns") as unknown as { get(): { n: number } }).get().n;
      expect(count).toBeGreaterThanOrEqual(200);
      // Whole transactions only: every row the copy holds is complete.
      expect(count % 50).toBe(0);
    } finally {
      copy.close();
    }
  });

  it("without better-sqlite3, --sqlite says what to install", () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: "MODULE_NOT_FOUND" });
    };
    expect(() => loadSqlite(missing)).toThrow(/--sqlite needs the optional package better-sqlite3 .*npm i better-sqlite3/);
    // The real one is found here (a dev dependency).
    expect(typeof loadSqlite(createRequire(import.meta.url))).toBe("function");
  });
});
