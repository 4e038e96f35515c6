/**
 * What the `checkpost` bin runs (bundled to dist/cli-bundle/start.cjs, CommonJS, so the hot path
 * never starts Node's ESM loader). The commands an agent runs on every step (save, health, resume,
 * latest) run the single-file CommonJS bundle through V8's code cache, kept in the CLI's per-machine
 * folder (code-cache.ts; docs/benchmarks.md, "CLI start-up"); CHECKPOST_CODE_CACHE=0 turns it off.
 * Every other command loads the code-split ESM bundle, which reads only what that command needs.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cliCacheDir } from "./cache-dir.ts";
import { runWithCodeCache } from "./code-cache.ts";

const HOT = new Set(["save", "health", "resume", "latest"]);

export function start(bundleDir: string, argv: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const command = argv[2] ?? "";
  if (!HOT.has(command) || env["CHECKPOST_CODE_CACHE"] === "0") return import(pathToFileURL(join(bundleDir, "main.js")).href);
  const debug = argv.includes("--debug") || env["CHECKPOST_DEBUG_CODE_CACHE"] === "1";
  const run = runWithCodeCache({
    bundle: join(bundleDir, "hot.cjs"),
    cacheDir: cliCacheDir(env["CHECKPOST_CACHE_DIR"], env),
    key: command,
    ...(debug ? { debug: (line: string) => process.stderr.write(`checkpost: ${line}\n`) } : {}),
  });
  // "exit", not "beforeExit": hot.cjs exits explicitly once its output is flushed (src/app/cli-hot-entry.ts).
  process.once("exit", () => run.save());
  return Promise.resolve();
}
