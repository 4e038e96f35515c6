/**
 * `npm run build`, second step: bundle the CLI entry with esbuild into dist/cli-bundle/ (ESM, code
 * split at each subcommand's lazy import). One file per command path instead of ~300 module files
 * cuts `checkpost save`'s start-up (see docs/benchmarks.md, "CLI start-up"). Packages the save path
 * does not need stay external and load from node_modules only when their command runs.
 */
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/cli-bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${root}src/cli/main.ts`],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  sourcemap: false,
  // Native (better-sqlite3) or only used by commands other than save/resume/health/latest.
  external: ["better-sqlite3", "probot", "prom-client", "pino-pretty", "marked", "sanitize-html", "yaml", "pg"],
  // Bundled CommonJS packages (pino) call require(); give the ESM bundle one.
  banner: { js: 'import { createRequire as __checkpostRequire } from "node:module"; const require = __checkpostRequire(import.meta.url);' },
  define: { CHECKPOST_VERSION: JSON.stringify((JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string }).version) },
  logLevel: "warning",
});
