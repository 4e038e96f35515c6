import { createHash } from "node:crypto";
import type pg from "pg";
import { CheckpostError } from "../../errors.ts";
import { MIGRATIONS } from "./migrations.ts";
import type { Migration } from "./migrations.ts";

/** Arbitrary, fixed: the advisory lock key every replica takes while migrating. */
export const MIGRATION_LOCK_KEY = 0x63_6b_70_73_74; // "ckpst"

const hash = (sql: string) => createHash("sha256").update(sql).digest("hex");

export interface MigrateResult {
  /** Versions applied by this call (empty when the schema was current). */
  applied: number[];
  /** Schema version after the call. */
  version: number;
}

/**
 * Bring the schema up to date. Replicas starting together serialise on a
 * session advisory lock, so exactly one applies each migration and the others
 * find it recorded. A database newer than this code, or an applied migration
 * whose text changed, is refused with what to do.
 */
export async function migrate(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrateResult> {
  await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS checkpost_schema_migrations (
      version    integer     PRIMARY KEY,
      name       text        NOT NULL,
      sha256     text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = (await client.query<{ version: number; name: string; sha256: string }>("SELECT version, name, sha256 FROM checkpost_schema_migrations ORDER BY version")).rows;
    const known = new Map(migrations.map((m) => [m.version, m]));
    for (const r of rows) {
      const m = known.get(r.version);
      if (!m)
        throw new CheckpostError(`the database's schema has migration ${r.version} ("${r.name}"), which this checkpost does not know: run a checkpost at least as new as the one that migrated it`);
      if (hash(m.sql) !== r.sha256)
        throw new CheckpostError(
          `migration ${r.version} ("${m.name}") was applied with different SQL than this checkpost ships: the schema may differ; restore the shipped migration or rebuild the database`,
        );
    }
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO checkpost_schema_migrations (version, name, sha256) VALUES ($1, $2, $3)", [m.version, m.name, hash(m.sql)]);
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK");
        throw new CheckpostError(`PostgreSQL migration ${m.version} ("${m.name}") failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      applied.push(m.version);
    }
    const version = Math.max(0, ...rows.map((r) => r.version), ...applied);
    return { applied, version };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
  }
}
