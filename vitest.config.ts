import { configDefaults, defineConfig } from "vitest/config";
import { SLOW_SUITES } from "./vitest.suites.ts";

// `npm test`: everything except the slow suites (see vitest.suites.ts and vitest.slow.config.ts).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...SLOW_SUITES],
    // One real PostgreSQL for the run (each test file makes its own database on it).
    globalSetup: ["test/helpers/postgres-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: keep workers bounded so integration servers are not starved.
    maxWorkers: 2,
  },
});
