import { mkdtempSync, rmSync } from "node:fs";
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
