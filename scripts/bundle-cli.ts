/**
 * `npm run build`, second step: bundle the CLI entry with esbuild into dist/cli-bundle/ (ESM, code
 * split at each subcommand's lazy import). One file per command path instead of ~300 module files
 * cuts `checkpost save`'s start-up (see docs/benchmarks.md, "CLI start-up"). Packages the save path
 * does not need stay external and load from node_modules only when their command runs.
 */
import { build } from "esbuild";
import type { BuildOptions, Plugin } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const nodeRequire = createRequire(import.meta.url);
// CHECKPOST_BUNDLE_OUTDIR: elsewhere than dist/ (the mixed-fleet suite bundles the CLI it runs without touching dist/).
const outdir = process.env.CHECKPOST_BUNDLE_OUTDIR ? resolve(process.env.CHECKPOST_BUNDLE_OUTDIR) : `${root}dist/cli-bundle`;
rmSync(outdir, { recursive: true, force: true });
const common = {
  bundle: true,
  platform: "node" as const,
  target: "node20",
  minify: process.env.CHECKPOST_BUNDLE_NO_MINIFY !== "1",
  sourcemap: false,
  // Native (better-sqlite3) or only used by commands other than save/resume/health/latest.
  // @modelcontextprotocol/sdk: an optional peer, only for `checkpost mcp` (and its subpaths, which esbuild leaves out with it).
  external: ["better-sqlite3", "probot", "prom-client", "pino-pretty", "marked", "sanitize-html", "yaml", "pg", "@modelcontextprotocol/sdk"],
  define: { CHECKPOST_VERSION: JSON.stringify((JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string }).version) },
  logLevel: "warning",
} satisfies BuildOptions;
// Every command: ESM, code split at each subcommand's lazy import.
await build({
  ...common,
  entryPoints: [{ in: `${root}src/app/cli-main.ts`, out: "main" }],
  outdir,
  splitting: true,
  format: "esm",
  // Bundled CommonJS packages (pino) call require(); give the ESM bundle one.
  banner: { js: 'import { createRequire as __checkpostRequire } from "node:module"; const require = __checkpostRequire(import.meta.url);' },
});
// hot.cjs holds only the command modules of the hot commands (src/cli/start.ts's HOT set: save, health,
// resume and latest live in store-commands.ts; `latest --all-issues` in history.ts). Every other
// command module becomes a stub that throws, so their code (the embedded forge alone is 65 KB) is
// neither parsed nor kept in the code cache on an agent's every step; start.ts sends those commands
// to main.js, so a stub is only reached if the two lists disagree, and then it says so.
const HOT_COMMAND_MODULES = new Set(["store-commands.ts", "history.ts"]);
const hotCommandsOnly: Plugin = {
  name: "hot-commands-only",
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      return HOT_COMMAND_MODULES.has(basename(path)) ? undefined : { path, namespace: "not-hot" };
    });
    b.onLoad({ filter: /.*/, namespace: "not-hot" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`checkpost: ${basename(args.path)} is not in hot.cjs; add it to HOT_COMMAND_MODULES in scripts/bundle-cli.ts or route its command to main.js in src/cli/start.ts`)});`,
      loader: "js",
    }));
  },
};
// Node built-ins that the hot files require at load but a save does not use (or uses late): each is
// compiled when first required (~1–2 ms apiece here, docs/benchmarks.md "Issue 22, fourth session"),
// so in hot.cjs and start.cjs they are required on first use instead. commander requires
// node:child_process for executable subcommands, which checkpost has none of; node:zlib is only for
// archived health records, node:os for a home folder when no cache folder is set, node:url for
// file URLs off the hot path. A named import compiles to a property read at the call, so the proxy
// below is only touched when the code really runs.
const LAZY_BUILTINS = ["child_process", "zlib", "os", "url"];
const lazyBuiltins: Plugin = {
  name: "lazy-builtins",
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join("|")})$`);
    b.onResolve({ filter }, (args) => {
      const name = args.path.replace(/^node:/, "");
      return args.namespace === "lazy-builtins" ? { path: `node:${name}`, external: true } : { path: name, namespace: "lazy-builtins" };
    });
    // esbuild's ESM interop copies a module's keys into a namespace of getters (ownKeys and a
    // descriptor per key), so those answer from the key list taken here, without loading the module.
    b.onLoad({ filter: /.*/, namespace: "lazy-builtins" }, (args) => ({
      contents: `let m; const load = () => (m ??= require("node:${args.path}"));
const keys = ${JSON.stringify(Object.getOwnPropertyNames(nodeRequire(`node:${args.path}`)))};
module.exports = new Proxy({}, { get: (_t, k) => load()[k], has: (_t, k) => k in load(), ownKeys: () => keys, getOwnPropertyDescriptor: (_t, k) => (keys.includes(k) ? { configurable: true, enumerable: true, get: () => load()[k] } : undefined) });`,
      loader: "js",
    }));
  },
};
// pino and its helpers (thread-stream, sonic-boom, the redaction compiler: ~60 KB, a sixth of hot.cjs)
// load only when a line is logged at the level (src/cli/lazy-logger.ts), which a save at the default
// `warn` never does. In hot.cjs they still cost their bytes on every call (read, then decoded into the
// source string V8 keeps), so the logger lives in its own file, hot-log.cjs, required on first use.
const HOT_LOG = "hot-log.cjs";
const loggerApart: Plugin = {
  name: "logger-apart",
  setup(b) {
    // A require, not an import(): hot.cjs runs in a vm.Script, which has no dynamic-import callback.
    b.onResolve({ filter: /\/log\/create-logger\.ts$/ }, () => ({ path: "create-logger", namespace: "logger-apart" }));
    b.onResolve({ filter: new RegExp(`^\\./${HOT_LOG.replace(".", "\\.")}$`) }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: "logger-apart" }, () => ({ contents: `module.exports = require("./${HOT_LOG}");`, loader: "js" }));
  },
};
await build({
  ...common,
  entryPoints: [`${root}src/log/create-logger.ts`],
  outfile: `${outdir}/${HOT_LOG}`,
  format: "cjs",
});
// The commands agents run on every step (save, health, resume, latest): one CommonJS file, which the
// bin compiles through V8's code cache (src/cli/code-cache.ts). ESM has no code cache on Node 20.
await build({
  ...common,
  plugins: [hotCommandsOnly, lazyBuiltins, loggerApart],
  entryPoints: [`${root}src/app/cli-hot-entry.ts`],
  outfile: `${outdir}/hot.cjs`,
  format: "cjs",
  // CommonJS has no import.meta; its uses (createRequire for pino-pretty, the package version) get this
  // file's URL, made when first read (node:url is not loaded on a save).
  define: { ...common.define, "import.meta.url": "__checkpostMeta.url" },
  banner: { js: 'var __checkpostMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
});
// The bin's first (and, for the hot commands, only) module: picks the bundle and runs it.
await build({
  ...common,
  entryPoints: [`${root}src/cli/start.ts`],
  outfile: `${outdir}/start.cjs`,
  format: "cjs",
  plugins: [lazyBuiltins],
});
