import type Database from "better-sqlite3";

/** Bump with every change to SCHEMA; older files are migrated in migrateSqlite. */
const SCHEMA_VERSION = 3;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS comments (
  issue TEXT NOT NULL, id INTEGER NOT NULL, author TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  html_url TEXT, hash TEXT NOT NULL, multi INTEGER NOT NULL, body TEXT, deleted INTEGER NOT NULL,
  PRIMARY KEY (issue, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watermarks (issue TEXT PRIMARY KEY, second INTEGER NOT NULL, ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (issue TEXT NOT NULL, agent TEXT NOT NULL, session TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (issue, agent, session)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS resume_index (issue TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS projection_state (issue TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS alerts (issue TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (issue, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS issue_meta (issue TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, issue TEXT NOT NULL, at_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_at ON deliveries (at_ms);
CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT, token INTEGER NOT NULL, expires_ms INTEGER NOT NULL);
-- Schema 3: the ids of the watermark's second, a row each (they were a JSON list in watermarks.ids, which
-- every delivery parsed, grew by one and wrote back: O(n) per delivery when a burst shares one second).
CREATE TABLE IF NOT EXISTS watermark_ids (issue TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (issue, id)) WITHOUT ROWID;
-- Schema 2: people's commands already claimed (run once, ever: ControlDesk).
CREATE TABLE IF NOT EXISTS commands (issue TEXT NOT NULL, key TEXT NOT NULL, outcome TEXT NOT NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (issue, key)) WITHOUT ROWID;
`;

/** Create the tables of the SQLite store, or bring an older file up to SCHEMA_VERSION; refuses a newer file. */
export function migrateSqlite(db: Database.Database): void {
  const v = db.pragma("user_version", { simple: true }) as number;
  if (v > SCHEMA_VERSION)
    throw new Error(`the bot's store was written by a newer checkpost (schema ${v}, this one knows ${SCHEMA_VERSION}): upgrade checkpost, or move the file away and run \`checkpost rebuild\``);
  db.transaction(() => {
    db.exec(SCHEMA);
    // Schema 2 → 3: the JSON list of the watermark's ids becomes rows.
    if (v > 0 && v < 3) {
      db.exec("INSERT OR IGNORE INTO watermark_ids (issue, id) SELECT w.issue, j.value FROM watermarks w, json_each(w.ids) j");
      db.exec("UPDATE watermarks SET ids = '[]'");
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
