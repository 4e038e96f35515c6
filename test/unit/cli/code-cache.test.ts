import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { buildSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// V8 keeps its own in-memory compilation cache per process, so whether the file cache is taken can
// only be seen from fresh processes: each step below runs one, as the bin does.
const run = promisify(execFile);
const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("runWithCodeCache (each run a fresh process)", () => {
  let dir: string;
  let bundle: string;
  let cacheDir: string;
  let runner: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "checkpost-code-cache-"));
    bundle = join(dir, "bundle.cjs");
    cacheDir = join(dir, "cache");
    runner = join(dir, "runner.mjs");
    // Plain JavaScript for the child processes (tsx would add ~0.4 s to each).
    buildSync({ entryPoints: [join(root, "src/cli/code-cache.ts")], bundle: true, platform: "node", format: "esm", outfile: join(dir, "code-cache.mjs"), logLevel: "warning" });
    // The bundle proves it ran (prints its file name, found through the CommonJS wrapper's require/__filename).
    writeFileSync(bundle, 'const path = require("node:path"); function later(x) { return x * 2; } console.log("ran " + path.basename(__filename) + " " + later(21));\n');
    writeFileSync(
      runner,
      `import { runWithCodeCache } from "./code-cache.mjs";
       const lines = [];
       const r = runWithCodeCache({ bundle: process.argv[2], cacheDir: process.argv[3], key: process.argv[4], debug: (l) => lines.push(l) });
       r.save();
       console.log(JSON.stringify({ outcome: r.outcome, cacheFile: r.cacheFile, lines }));\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const once = async (key = "save", cache = cacheDir) => {
    const { stdout } = await run(process.execPath, [runner, bundle, cache, key], { encoding: "utf8" });
    const [ran, result] = stdout.trim().split("\n");
    expect(ran).toBe("ran bundle.cjs 42");
    return JSON.parse(result ?? "") as { outcome: string; cacheFile: string; lines: string[] };
  };

  it("compiles without a cache the first time, writes one, and the next process is served from it", async () => {
    const first = await once();
    expect(first.outcome).toBe("miss");
    expect(first.lines.some((l) => l.startsWith("code cache: wrote"))).toBe(true);
    const second = await once();
    expect(second.outcome).toBe("hit");
    expect(second.cacheFile).toBe(first.cacheFile);
    expect(second.lines.some((l) => l.startsWith("code cache: wrote"))).toBe(false);
  });

  it("runs the bundle when the cache file is garbage, and replaces it", async () => {
    const { cacheFile } = await once();
    writeFileSync(cacheFile, Buffer.from("not a V8 code cache at all"));
    expect((await once()).outcome).toBe("rejected");
    expect((await once()).outcome).toBe("hit");
  });

  it("keys the cache by build: a rebuilt bundle gets a new file and the old one for that command is removed", async () => {
    const old = await once("save");
    const other = await once("resume");
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000)); // what a rebuild does to the mtime
    const rebuilt = await once("save");
    expect(rebuilt.outcome).toBe("miss");
    expect(rebuilt.cacheFile).not.toBe(old.cacheFile);
    expect(readdirSync(cacheDir).sort()).toEqual([rebuilt.cacheFile, other.cacheFile].map((f) => f.slice(cacheDir.length + 1)).sort());
  });

  it("runs a bundle that is not ASCII as UTF-8", async () => {
    const utf8 = join(dir, "utf8.cjs");
    writeFileSync(utf8, 'console.log("ran Größe ✓");\n');
    const { stdout } = await run(process.execPath, [runner, utf8, cacheDir, "utf8"], { encoding: "utf8" });
    expect(stdout.split("\n")[0]).toBe("ran Größe ✓");
  });

  it("costs only speed when the cache folder cannot be made: the bundle runs and --debug says why", async () => {
    const blocked = join(dir, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder should be");
    const r = await once("save", blocked);
    expect(r.outcome).toBe("miss");
    expect(r.lines.some((l) => l.startsWith("code cache: cannot write"))).toBe(true);
  });
});
