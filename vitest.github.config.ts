import { defineConfig } from "vitest/config";
import { GITHUB_HOST_SUITES } from "./vitest.suites.ts";

// `npm run test:github`: the bot's tracker, controls and chain suites with the bot behind the
// GitHub-behaviour host (test/helpers/github-host/github-over-forge.ts) instead of the Forgejo adapter.
// botWorld reads CHECKPOST_TEST_HOST; cases a host cannot run skip by its capabilities (itNeeds).
export default defineConfig({
  test: {
    include: GITHUB_HOST_SUITES,
    env: { CHECKPOST_TEST_HOST: "github" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
  },
});
