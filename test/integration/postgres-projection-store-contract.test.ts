import { describe } from "vitest";
import pg from "pg";
import { PostgresProjectionStore } from "../../src/bot-state/postgres/postgres-projection-store.ts";
import { projectionStoreContract } from "../helpers/projection-store-contract.ts";
import { testPostgres } from "../helpers/test-postgres.ts";

// The same contract suite SQLite passes (test/unit/bot-state), on a real PostgreSQL.
const server = testPostgres();

describe.skipIf(!server.url)(`PostgreSQL${server.url ? "" : ` (skipped: ${server.skipReason})`}`, () => {
  projectionStoreContract("PostgreSQL", async () => {
    const url = await server.freshDatabase();
    return {
      open: (options) => PostgresProjectionStore.open({ url, ...options }),
      destroy: async () => {
        const c = new pg.Client({ connectionString: server.url ?? "" });
        await c.connect();
        try {
          await c.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
        } finally {
          await c.end();
        }
      },
    };
  });
});
