import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import pg from "pg";

export interface TestPostgres {
  /** Maintenance-database URL of the run's server, or null (then `skipReason` says why). */
  url: string | null;
  skipReason: string;
  /** A fresh database for one test file / test; its URL. */
  freshDatabase(): Promise<string>;
}

/** The run's PostgreSQL (see postgres-global-setup.ts). */
export function testPostgres(): TestPostgres {
  const url = inject("postgresUrl");
  return {
    url,
    skipReason: inject("postgresSkipReason"),
    async freshDatabase() {
      if (!url) throw new Error("no PostgreSQL for this run");
      const name = `t_${randomBytes(6).toString("hex")}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    },
  };
}
