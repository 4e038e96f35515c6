/**
 * Which test files are slow. `npm test` (vitest.config.ts) leaves them out so it stays under a
 * minute on a two-core machine; `npm run test:slow` (vitest.slow.config.ts) runs exactly these, and
 * .ci/run runs both.
 */
export const SLOW_SUITES = [
  // crash, fault and fuzz trials: child processes, many runs (the quicker reliability files stay in npm test)
  "test/reliability/crash.test.ts",
  "test/reliability/faults.test.ts",
  "test/reliability/fuzz.test.ts",
  "test/reliability/snapshots.test.ts", // SIGKILLed snapshot saves and restores (npm run reliability:snapshots runs 100 of each)
  "test/reliability/trust-suite.test.ts", // runs the reliability:trust scenarios at reduced counts
  // trust at size: 20,000 untrusted names, a 30 MiB comment (npm test runs the same checks at 2,000
  // names and 8 MiB, so each issue-9 attack stays in npm test); and the web view in headless Chromium
  "test/security/untrusted-names-20k.test.ts",
  "test/security/huge-comment-30mib.test.ts",
  "test/security/web-view-huge-30mib.test.ts", // the web view of an issue with a 30 MB comment (npm test: 8 MB in web-view-xss)
  "test/security/web-view-browser.test.ts", // Chromium start-up; the same vectors are checked without a browser in npm test
  "test/reliability/replicas.test.ts", // three bot processes on PostgreSQL, leaders SIGKILLed
  "test/reliability/fleet.test.ts", // the mixed-fleet differential suite at 4 schedules (one per bot mode), python3 and bot processes
  "test/**/scale.test.ts", // 50,000-comment folds and forge paging at scale
  "test/unit/projection/order-independence.test.ts", // property test over many permutations
  "test/bench/**/*.test.ts", // the benchmark's correctness run at tiny N
  "test/package/**/*.test.ts", // npm pack + install + tsc of a consumer
  "test/e2e/rollover.test.ts", // rollover with the seed's Python and chain readers (~15 s)
  "test/e2e/browser.test.ts", // Chromium driving the web view and the bot (~35 s); saves docs/img screenshots
  "test/security/web-view-mermaid-csp.test.ts", // Chromium: the CSP refuses a Mermaid label's inline handler
  "test/e2e/deploy-guide.test.ts", // docs/deploy.md run as written: npm start builds dist/, the bot as a process (~1 min)
  "test/integration/demo-identities.test.ts", // the demo's bot process started as npm start does (~20 s under tsx)
];

/**
 * The suites `npm run test:github` runs with the bot behind the GitHub-behaviour host (issue 31): every
 * suite that starts the bot through test/helpers/bot-world.ts and drives its tracker, controls, chain
 * (rollover) and store. Left out: the browser suite (Chromium), the replica suites (they start their own
 * bots on PostgreSQL without a world) and the deploy guide (a bot process). Cases a host cannot run skip
 * by capability (test/helpers/host-capabilities.ts).
 */
export const GITHUB_HOST_SUITES = [
  "test/e2e/bot.test.ts",
  "test/e2e/bot-convergence.test.ts",
  "test/e2e/bot-store.test.ts",
  "test/e2e/chain*.test.ts",
  "test/e2e/cold-resume-*.test.ts",
  "test/e2e/compaction.test.ts",
  "test/e2e/controls*.test.ts",
  "test/e2e/legacy-writers-bot.test.ts",
  "test/e2e/resume-index-comment.test.ts",
  "test/e2e/rollover*.test.ts",
  "test/e2e/save-new-agent.test.ts",
  "test/e2e/snapshot-bot.test.ts",
  "test/e2e/tick-latency.test.ts",
  "test/e2e/toy-control-action.test.ts",
  "test/e2e/trust-separate-accounts.test.ts",
  "test/security/archives.test.ts",
  "test/security/bot-api-auth.test.ts",
  "test/security/rejected-delivery-log.test.ts",
  "test/security/resume-index.test.ts",
  "test/security/small-holes.test.ts",
  "test/security/untrusted-output.test.ts",
];
