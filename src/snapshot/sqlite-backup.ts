import { createRequire } from "node:module";
import { CheckpostError } from "../errors.ts";

interface Db {
  prepare(sql: string): { run(...args: unknown[]): unknown };
  pragma(sql: string, o?: { simple: boolean }): unknown;
  close(): void;
}
type DbConstructor = new (file: string, o?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number }) => Db;

/** better-sqlite3 is an optional peer: the library installs without native builds, and `--sqlite` says what to install. */
export function loadSqlite(load: (id: string) => unknown = createRequire(import.meta.url)): DbConstructor {
  try {
    return load("better-sqlite3") as DbConstructor;
  } catch (e) {
    throw new CheckpostError("--sqlite needs the optional package better-sqlite3 (Node 20 has no node:sqlite): run `npm i better-sqlite3` beside checkpost", { cause: e });
  }
}

/**
 * A consistent copy of a live SQLite database, in one step: `VACUUM INTO` reads one snapshot of the
 * database in a single transaction, so a busy writer cannot make it restart (a stepwise backup restarts
 * on every write by another connection). The copy is then checked with `PRAGMA quick_check` before it is
 * published. Copying the db, -wal and -shm files instead is not a consistent copy.
 */
export function backupSqlite(source: string, dest: string, Database: DbConstructor = loadSqlite()): void {
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    db.prepare("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
  }
  const check = new Database(dest, { readonly: true, fileMustExist: true });
  try {
    const r = check.pragma("quick_check", { simple: true });
    if (r !== "ok") throw new CheckpostError(`the backup of ${source} failed PRAGMA quick_check (${String(r).slice(0, 200)}); nothing was uploaded`);
  } finally {
    check.close();
  }
}
