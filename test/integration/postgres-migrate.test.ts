import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { migrate } from "../../src/bot-state/postgres/migrate.ts";
import { MIGRATIONS } from "../../src/bot-state/postgres/migrations.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

const server = testPostgres();

describe.skipIf(!server.url)(`PostgreSQL migrations${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  let url = "";
  const clients: pg.Client[] = [];
  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    url = await server.freshDatabase();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
  });

  it("replicas starting together: one applies each migration, all end on the same version", async () => {
    const cs = await Promise.all([connect(), connect(), connect(), connect()]);
    const results = await Promise.all(cs.map((c) => migrate(c)));
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect(results.map((r) => r.version)).toEqual([latest, latest, latest, latest]);
    // Each migration applied by exactly one of the four.
    expect(results.flatMap((r) => r.applied).sort()).toEqual(MIGRATIONS.map((m) => m.version).sort());
    const rows = (await cs[0]!.query("SELECT version FROM checkpost_schema_migrations ORDER BY version")).rows;
    expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const tables = (await cs[0]!.query("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'checkpost_%' ORDER BY 1")).rows.map((r: { table_name: string }) => r.table_name);
    expect(tables).toEqual([
      "checkpost_alerts",
      "checkpost_commands",
      "checkpost_comments",
      "checkpost_deliveries",
      "checkpost_entries",
      "checkpost_issue_meta",
      "checkpost_leases",
      "checkpost_projection_state",
      "checkpost_replicas",
      "checkpost_resume_index",
      "checkpost_schema_migrations",
      "checkpost_watermarks",
      "checkpost_write_log",
    ]);
  });

  it("a second start applies nothing", async () => {
    const c = await connect();
    expect((await migrate(c)).applied).toEqual([]);
  });

  it("refuses a database migrated by a newer checkpost", async () => {
    const c = await connect();
    await c.query("INSERT INTO checkpost_schema_migrations (version, name, sha256) VALUES (9999, 'future', 'x')");
    await expect(migrate(c)).rejects.toThrow(/migration 9999 \("future"\), which this checkpost does not know/);
    await c.query("DELETE FROM checkpost_schema_migrations WHERE version = 9999");
  });

  it("refuses an applied migration whose SQL changed", async () => {
    const c = await connect();
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    await expect(migrate(c, edited)).rejects.toThrow(/was applied with different SQL/);
  });

  it("a failing migration rolls back whole and is not recorded", async () => {
    const c = await connect();
    const broken = [...MIGRATIONS, { version: 10_000, name: "broken", sql: "CREATE TABLE checkpost_half (x int); SELECT no_such_function();" }];
    await expect(migrate(c, broken)).rejects.toThrow(/migration 10000 \("broken"\) failed/);
    expect((await c.query("SELECT to_regclass('checkpost_half') AS t")).rows[0].t).toBeNull();
    expect((await c.query("SELECT count(*)::int AS n FROM checkpost_schema_migrations WHERE version = 10000")).rows[0].n).toBe(0);
    // and the lock was released: another session can migrate
    const other = await connect();
    expect((await migrate(other)).applied).toEqual([]);
  });
});
