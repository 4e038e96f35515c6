import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One real PostgreSQL for the run (each test file makes its own database on it).
    globalSetup: ["test/helpers/postgres-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: keep workers bounded so integration servers are not starved.
    maxWorkers: 2,
  },
});
