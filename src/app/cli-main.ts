// The CLI's entry point (dist/cli-bundle/main.js): the only module that exits the process. Part of the
// composition root: the process's io and the commands' root are made here.
import { processIo } from "./cli-io.ts";
import { runCli } from "./cli.ts";

process.exitCode = await runCli(process.argv.slice(2), processIo());
