// The entry of dist/cli-bundle/hot.cjs: the same CLI as main.ts, as a CommonJS script (no top-level
// await) so the bin can run it through V8's code cache (code-cache.ts) for the commands agents call
// on every step.
import * as z from "zod";
import { processIo } from "./io.ts";
import { lazyLoggersSettled } from "./lazy-logger.ts";
import { runCli } from "./run-cli.ts";

// A one-shot process parses each schema once or twice: zod's JIT (it compiles a parser per object
// schema with new Function) costs more than it saves here. Same results, only the code path differs.
z.config({ jitless: true });
void runCli(process.argv.slice(2), processIo()).then(async (code) => {
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
