#!/bin/sh
':' //; exec node "$0" -- "$@"
// The first two lines are read by sh, then by node. sh runs node with `--` before the user's arguments:
// Node 20 and 22 scan every argument up to `--` for `--env-file` and exit 9 with their own
// "node: FILE: not found" when the file is missing (nodejs/node#54232), before checkpost runs. After
// the `--`, `checkpost --env-file FILE` is checkpost's own flag, with its own message and exit code 5.
// For node, line 2 is a string and a comment.
//
// The `checkpost` command: the compiled, bundled CLI (dist/cli-bundle, built by `npm run build`,
// which `npm pack` runs first). No TypeScript at run time. CommonJS, like what it loads first
// (src/cli/start.ts explains why).
"use strict";
const { join } = require("node:path");
let start;
try {
  ({ start } = require("../dist/cli-bundle/start.cjs"));
} catch (e) {
  if (e && e.code === "MODULE_NOT_FOUND" && String(e.message).includes("start.cjs")) {
    process.stderr.write("checkpost: the CLI is not built yet; run `npm run build` in the checkpost folder (or use `npm run checkpost -- …` to run from source)\n");
    process.exit(1);
  }
  throw e;
}
// Drop the `--` sh added (absent when node runs this file directly), in place: the bundles read process.argv.
if (process.argv[2] === "--") process.argv.splice(2, 1);
start(join(__dirname, "../dist/cli-bundle"), process.argv, process.env);
