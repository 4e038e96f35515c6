// The entry of dist/cli-bundle/hot.cjs: the same CLI as cli-main.ts, as a CommonJS script (no top-level
// await) so the bin can run it through V8's code cache (src/cli/code-cache.ts) for the commands agents
// call on every step. Its root holds only what those commands use (the context): the bot's store and
// the embedded forge stay out of hot.cjs, and src/cli/start.ts sends their commands to main.js.
// First: zod's jitless setting must be in place before any schema is built (see zod-jitless.ts).
import "./zod-jitless.ts";
import type { CliRoot } from "../cli/context.ts";
import { lazyLoggersSettled } from "../cli/lazy-logger.ts";
import { runCliWith } from "../cli/run-cli.ts";
import { cliContext } from "./cli-context.ts";
import { processIo } from "./cli-io.ts";

const notHot = (what: string) => () => Promise.reject(new Error(`checkpost: ${what} is not in hot.cjs; route its command to main.js in src/cli/start.ts`));
const hotRoot: CliRoot = {
  context: async (io, flags) => cliContext(io, flags),
  settings: notHot("CliRoot.settings"),
  host: notHot("CliRoot.host"),
  openBotStore: notHot("CliRoot.openBotStore"),
  snapshotSettings: notHot("CliRoot.snapshotSettings"),
  forge: notHot("CliRoot.forge"),
  mcp: notHot("CliRoot.mcp"),
};

void runCliWith(process.argv.slice(2), processIo(), hotRoot).then(async (code) => {
  process.exitCode = code;
  // The command has finished and awaited all it started. Exit once stdout and stderr are flushed
  // rather than wait for the event loop to drain: V8's idle-time GC task and the teardown of a full
  // loop exit are several milliseconds of every save, spent after its answer was printed. The code
  // cache is written on "exit" (start.ts). Log lines still on their way to pino go out first.
  await lazyLoggersSettled();
  let pending = 2;
  const flushed = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", flushed);
  process.stderr.write("", flushed);
});
