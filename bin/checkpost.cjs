#!/usr/bin/env node
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
start(join(__dirname, "../dist/cli-bundle"), process.argv, process.env);
