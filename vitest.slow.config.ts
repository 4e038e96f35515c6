import { defineConfig } from "vitest/config";
import { SLOW_SUITES } from "./vitest.suites.ts";

// `npm run test:slow`: the suites `npm test` leaves out (reliability, scale, benchmark correctness,
// the pack-and-install test). Longer time-outs: they do real work (child processes, npm, tsc).
export default defineConfig({
  test: {
    include: SLOW_SUITES,
    // The same PostgreSQL set-up as `npm test`, for slow suites that use it (scale-out chaos).
    globalSetup: ["test/helpers/postgres-global-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
