#!/usr/bin/env node
// The `checkpost` command: the compiled, bundled CLI (dist/cli-bundle, built by `npm run build`,
// which `npm pack` runs first). No TypeScript at run time.
try {
  await import("../dist/cli-bundle/main.js");
} catch (e) {
  if (e?.code === "ERR_MODULE_NOT_FOUND" && String(e.message).includes("cli-bundle")) {
    process.stderr.write("checkpost: the CLI is not built yet; run `npm run build` in the checkpost folder (or use `npm run checkpost -- …` to run from source)\n");
    process.exit(1);
  }
  throw e;
}
