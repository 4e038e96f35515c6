/**
 * Run the CLI's single-file CommonJS bundle through V8's code cache.
 *
 * Why: compiling the bundle is about a fifth of a `checkpost save` (docs/benchmarks.md, "CLI
 * start-up"), and an agent pays it on every call. Node 22 caches compiled code itself
 * (`module.enableCompileCache`); Node 20, our floor, does not, so the bin does it with `vm.Script`'s
 * `cachedData`. The cache is written after the command has run, so it also holds the functions that
 * were compiled lazily on the way.
 *
 * The cache is only ever an optimisation. V8 checks that it matches its own version, flags and the
 * source; a mismatch is "rejected" and the bundle compiles as without a cache. A file that cannot be
 * read or written costs speed only: it is reported under --debug (CHECKPOST_DEBUG_CODE_CACHE=1 too),
 * never as an error.
 */
import { isAscii } from "node:buffer";
import { closeSync, openSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { cacheDirUsable } from "./cache-dir.ts";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

export interface CodeCacheRun {
  /** The cache file this run read or will write. */
  cacheFile: string;
  /** "hit": V8 took the cache; "rejected": a file was there but did not match; "miss": no file. */
  outcome: "hit" | "rejected" | "miss";
  /** Write the cache now if this run did not use one (call once the command has finished). */
  save(): void;
}

export interface CodeCacheOptions {
  /** The CommonJS bundle to run. */
  bundle: string;
  /** Folder for cache files (the CLI's per-machine folder). */
  cacheDir: string;
  /** What the cache is for, e.g. the subcommand: each gets the functions its own path compiled. */
  key: string;
  /** Where to say what happened to the cache; nothing is said when absent. */
  debug?: (line: string) => void;
}

const PREFIX = "v8-code-";

/** The cache file for this bundle build, Node version and key. */
export function codeCacheFile(opts: Pick<CodeCacheOptions, "bundle" | "cacheDir" | "key">): string {
  const s = statSync(opts.bundle);
  const build = `${s.size.toString(36)}-${Math.trunc(s.mtimeMs).toString(36)}`;
  return join(opts.cacheDir, `${PREFIX}${safe(opts.key)}-${process.version}-${process.arch}-${build}.bin`);
}

/** Load and run `bundle` as a CommonJS module, compiled from the cache when there is a good one. */
export function runWithCodeCache(opts: CodeCacheOptions): CodeCacheRun {
  // esbuild writes ASCII (it escapes the rest), and decoding ASCII as latin1 skips UTF-8 decoding of
  // the whole bundle (~4 ms of a save); anything else is decoded as UTF-8.
  const bytes = readFileSync(opts.bundle);
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const cacheFile = codeCacheFile(opts);
  let cached: Buffer | undefined;
  try {
    // A code cache planted in a folder others may write to is never loaded (cacheDirUsable).
    if (!cacheDirUsable(opts.cacheDir)) throw Object.assign(new Error("the cache folder is writable by others"), { code: "ENOENT" });
    cached = readFileSync(cacheFile);
  } catch (e) {
    if (!isMissing(e)) opts.debug?.(`code cache: cannot read ${cacheFile} (${message(e)}); compiling without it`);
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: opts.bundle, ...(cached ? { cachedData: cached } : {}) });
  const outcome = cached === undefined ? "miss" : script.cachedDataRejected === true ? "rejected" : "hit";
  opts.debug?.(`code cache: ${outcome} (${basename(cacheFile)})`);
  const run = {
    cacheFile,
    outcome,
    save: () => {
      if (outcome === "hit") return;
      try {
        writeAtomically(cacheFile, script.createCachedData());
        removeOlder(opts.cacheDir, cacheFile, opts.key);
        opts.debug?.(`code cache: wrote ${cacheFile}`);
      } catch (e) {
        opts.debug?.(`code cache: cannot write ${cacheFile} (${message(e)}); the next run compiles again`);
      }
    },
  } satisfies CodeCacheRun;
  const module = { exports: {} as unknown };
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: typeof module, f: string, d: string) => void;
  fn.call(module.exports, module.exports, createRequire(opts.bundle), module, opts.bundle, dirname(opts.bundle));
  return run;
}

/** Concurrent agents may save at once: write a private temp file, then rename it into place. */
function writeAtomically(file: string, data: Buffer): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Caches of older builds or Node versions for the same key are dead weight once a new one is written. */
function removeOlder(dir: string, keep: string, key: string): void {
  const mine = `${PREFIX}${safe(key)}-`;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(mine) && name.endsWith(".bin") && join(dir, name) !== keep) unlinkSync(join(dir, name));
  }
}

const safe = (key: string) => key.replace(/[^A-Za-z0-9_.]/g, "_");
const isMissing = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
