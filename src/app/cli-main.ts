// The CLI's entry point (dist/cli-bundle/main.js): the only module that exits the process. Part of the
// composition root: the process's io and the commands' root are made here.
import { processIo } from "./cli-io.ts";
import { runCli } from "./cli.ts";

// `npm run checkpost -- …` puts a `--` first so that Node does not take checkpost's --env-file for its own
// (nodejs/node#54232; bin/checkpost.cjs does the same); it is not the user's.
const argv = process.argv.slice(2);
if (argv[0] === "--") argv.shift();
process.exitCode = await runCli(argv, processIo());
