// The in-memory ProjectionStore (its ports combined) against the same contract as SQLite and PostgreSQL.
import { createMemoryProjectionStore } from "../../../src/bot-state/index.ts";
import type { ProjectionStore } from "../../../src/bot-state/index.ts";
import { projectionStoreContract } from "../../helpers/projection-store-contract.ts";

projectionStoreContract("memory", async () => {
  // Several opens are several processes on one database: they share the one in-memory state.
  let shared: ProjectionStore | undefined;
  return {
    open: async (options) => (shared ??= createMemoryProjectionStore(options)),
    destroy: async () => {
      shared = undefined;
    },
  };
});
