// The CLI's entry point: the only module that exits the process.
import { processIo } from "./io.ts";
import { runCli } from "./run-cli.ts";

process.exitCode = await runCli(process.argv.slice(2), processIo());
