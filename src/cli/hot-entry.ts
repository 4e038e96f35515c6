// The entry of dist/cli-bundle/hot.cjs: the same CLI as main.ts, as a CommonJS script (no top-level
// await) so the bin can run it through V8's code cache (code-cache.ts) for the commands agents call
// on every step.
import * as z from "zod";
import { processIo } from "./io.ts";
import { runCli } from "./run-cli.ts";

// A one-shot process parses each schema once or twice: zod's JIT (it compiles a parser per object
// schema with new Function) costs more than it saves here. Same results, only the code path differs.
z.config({ jitless: true });
void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
