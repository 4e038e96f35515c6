/**
 * The package as a stranger gets it: `npm pack`, install the tarball into an empty folder outside
 * this checkout, import it from plain Node (ESM and require), type-check a strict nodenext consumer,
 * and run the installed `checkpost` bin against the embedded Forgejo.
 *
 * Slow (an npm install and a full tsc): it runs in `npm run test:slow`, not in `npm test`.
 * Dependencies come from the npm cache first (`--prefer-offline`) and the npm registry otherwise.
 * Install scripts are skipped (better-sqlite3's would fetch a prebuilt binary from GitHub); nothing
 * tested here needs them.
 *
 * The tarball is installed alone first (a library user: no bot packages, docs/install.md), then the
 * bot's optional peer dependencies are added for the bot's entry and the web view's mermaid.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgeWorld, type ForgeWorld } from "../helpers/forge-fixture.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; scripts: Record<string, string> };
const execFileAsync = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
/** The optional peer dependencies (src/cli/optional-packages.ts): a library user installs none of them. */
const OPTIONAL = ["better-sqlite3", "marked", "mermaid", "pg", "probot", "prom-client", "sanitize-html"];

/** Newest modification time under a folder (ms). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

let work: string;
let app: string;
let files: string[];

beforeAll(() => {
  // What `prepack` would run; skipped when dist/ is newer than every source file (CI built it already).
  const bundle = join(root, "dist/cli-bundle/main.js");
  let built = 0;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {}
  if (built < newest(join(root, "src"))) execFileSync(npm, ["run", "build", "--silent"], { cwd: root, stdio: "pipe" });
  work = mkdtempSync(join(tmpdir(), "checkpost-pack-"));
  const out = execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: root, encoding: "utf8" });
  const packed = (JSON.parse(out) as { filename: string; files: { path: string }[] }[])[0];
  if (!packed) throw new Error(`npm pack printed no result: ${out}`);
  files = packed.files.map((f) => f.path);
  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", join(work, packed.filename)], { cwd: app, stdio: "pipe" });
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const node = (args: string[], input?: string) => execFileSync(process.execPath, args, { cwd: app, encoding: "utf8", ...(input !== undefined ? { input } : {}) });

describe("the packed tarball", () => {
  it("ships compiled code with types and no tests, benchmarks, fixtures or TypeScript sources", () => {
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/app/library.js");
    expect(files).toContain("dist/app/library.d.ts");
    expect(files).toContain("dist/app/bot-package.d.ts");
    expect(files).toContain("dist/cli-bundle/main.js");
    expect(files).toContain("bin/checkpost.cjs");
    expect(files).toContain("dist/cli-bundle/start.cjs");
    expect(files).toContain("dist/cli-bundle/hot.cjs");
    const stray = files.filter((f) => /^(src|test|bench|fixtures|scripts)\//.test(f) || (f.endsWith(".ts") && !f.endsWith(".d.ts")));
    expect(stray).toEqual([]);
  });

  it("installs light: none of the bot's packages, no native build", () => {
    const installed = readdirSync(join(app, "node_modules"));
    expect(OPTIONAL.filter((p) => installed.includes(p))).toEqual([]);
    expect(findFiles(join(app, "node_modules"), "binding.gyp")).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, "node_modules/checkpost/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
    };
    expect(Object.keys(manifest.dependencies).filter((d) => OPTIONAL.includes(d))).toEqual([]);
    expect(OPTIONAL.every((p) => manifest.peerDependenciesMeta[p]?.optional === true)).toBe(true);
    // Nor the MCP SDK: `checkpost mcp` without it names the package to install (docs/mcp.md).
    expect(installed).not.toContain("@modelcontextprotocol");
    const mcp = spawnSync(process.execPath, ["node_modules/.bin/checkpost", "mcp"], { cwd: app, encoding: "utf8", input: "" });
    expect(mcp.status).toBe(1);
    expect(mcp.stderr).toContain("in your project run: npm i @modelcontextprotocol/sdk");
    // checkpost/bot without them: Node names the missing package.
    const r = spawnSyncNode(["--input-type=module", "-e", 'await import("checkpost/bot")']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Cannot find package '(probot|prom-client|better-sqlite3|pg)'/);
  });

  it("ships the README's images", () => {
    const images = [...readFileSync(join(root, "README.md"), "utf8").matchAll(/\]\((docs\/img\/[^)]+\.png)\)/g)].map((m) => m[1] as string);
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((i) => !files.includes(i))).toEqual([]);
  });

  it("imports from plain Node without loading probot, pg, better-sqlite3, prom-client, sanitize-html, marked or mermaid", () => {
    // A resolve hook records every module the import pulls in.
    writeFileSync(join(app, "hooks.mjs"), 'export async function resolve(s, c, next) { const r = await next(s, c); process._rawDebug("LOADED " + r.url); return r; }\n');
    writeFileSync(join(app, "register.mjs"), 'import { register } from "node:module"; register("./hooks.mjs", import.meta.url);\n');
    const out = execFileSync(
      process.execPath,
      [
        "--import",
        "./register.mjs",
        "--input-type=module",
        "-e",
        'const c = await import("checkpost"); console.log(JSON.stringify({ n: Object.keys(c).length, f: typeof c.formatCheckpoint, s: typeof c.SessionStore, fromEnv: typeof c.SessionStore.fromEnv, bot: typeof c.createBot }));',
      ],
      { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    expect(JSON.parse(out)).toMatchObject({ f: "function", s: "function", fromEnv: "function", bot: "undefined" });
    const loaded = spawnLoaded('await import("checkpost")');
    expect(loaded.some((u) => u.includes("/node_modules/checkpost/dist/app/library.js"))).toBe(true);
    expect(loaded.filter((u) => /\/node_modules\/(probot|prom-client|pg|better-sqlite3|sanitize-html|marked|mermaid)\//.test(u))).toEqual([]);
  });

  it("can be require()d from CommonJS (Node ≥ 20.19 loads ESM through require)", () => {
    const out = node(["-e", 'const c = require("checkpost"); process.stdout.write(typeof c.parseComment)']);
    expect(out).toBe("function");
  });

  // two full tsc runs that check every dependency's .d.ts (skipLibCheck off): minutes on a busy machine

  describe("the installed bin", () => {
    let world: ForgeWorld;
    beforeAll(async () => {
      world = await forgeWorld();
    });
    afterAll(() => world.close());

    it("prints its version and formats a comment", () => {
      expect(node(["node_modules/.bin/checkpost", "--version"]).trim()).toBe(pkg.version);
      const body = node(["node_modules/.bin/checkpost", "format", "checkpoint", "--agent", "a", "--session", "s", "--phase", "p", "--data", '{"k":1}', "--time", "2026-01-01T00:00:00Z"]);
      expect(body.startsWith("[CHECKPOINT] a\nVersion: 1.0\nPhase: p\n")).toBe(true);
    });

    it("run as a command (as npm links it), --env-file is checkpost's: a missing file exits 5 with checkpost's message", () => {
      // Executed, not given to node: sh runs node with `--` first (bin/checkpost.cjs, nodejs/node#54232).
      const r = spawnSync(join(app, "node_modules/.bin/checkpost"), ["--env-file", "missing.env", "status"], { cwd: app, encoding: "utf8" });
      expect(r.stderr).toMatch(/^checkpost: cannot read --env-file missing\.env/);
      expect(r.stderr).not.toMatch(/^node:/m);
      expect(r.status).toBe(5);
      expect(spawnSync(join(app, "node_modules/.bin/checkpost"), ["--version"], { cwd: app, encoding: "utf8" }).stdout.trim()).toBe(pkg.version);
    });

    it("saves a checkpoint to Forgejo, the second time compiled from V8's code cache", async () => {
      // Asynchronous: the forge runs in this process, so a blocking spawn would never get an answer.
      const save = (phase: string) =>
        execFileAsync(process.execPath, ["node_modules/.bin/checkpost", "save", "--agent", "a", "--session", "s", "--phase", phase, "--data", '{"k":1}'], {
          cwd: app,
          encoding: "utf8",
          env: {
            ...process.env,
            FORGEJO_URL: world.forge.url,
            FORGEJO_TOKEN: world.token,
            FORGEJO_REPOSITORY: `${world.owner}/${world.repo}`,
            CHECKPOST_CACHE_DIR: join(work, "cache"),
            CHECKPOST_DEBUG_CODE_CACHE: "1",
          },
        });
      const first = await save("p");
      expect(first.stderr).toContain("code cache: miss");
      const second = await save("q");
      expect(second.stderr).toContain("code cache: hit");
      const saved = [first, second].map((r) => JSON.parse(r.stdout) as { comment_id: number; issue: number; phase: string });
      expect(saved.map((s) => [s.issue, s.phase])).toEqual([
        [world.issue, "p"],
        [world.issue, "q"],
      ]);
      const comments = await world.api().listComments({ owner: world.owner, repo: world.repo }, world.issue);
      expect(comments.map((c) => c.id)).toEqual(expect.arrayContaining(saved.map((s) => s.comment_id)));
    });

    it("install-webhook uses the app.yml the package ships (the consumer's folder has none)", async () => {
      const r = await execFileAsync(process.execPath, ["node_modules/.bin/checkpost", "install-webhook", "--bot-url", "http://127.0.0.1:9"], {
        cwd: app,
        encoding: "utf8",
        env: {
          ...process.env,
          FORGEJO_URL: world.forge.url,
          FORGEJO_TOKEN: world.token,
          FORGEJO_REPOSITORY: `${world.owner}/${world.repo}`,
          WEBHOOK_SECRET: "pack-install-secret",
          CHECKPOST_CACHE_DIR: join(work, "cache-hook"),
        },
      });
      expect(JSON.parse(r.stdout)).toMatchObject({ url: "http://127.0.0.1:9/api/github/webhooks" });
    });

    // hot.cjs holds only the hot commands' modules (scripts/bundle-cli.ts): each of them, through it.
    it("runs every hot command (health, latest, latest --all-issues, resume) from the code-cached bundle", async () => {
      const cli = (...args: string[]) =>
        execFileAsync(process.execPath, ["node_modules/.bin/checkpost", ...args], {
          cwd: app,
          encoding: "utf8",
          env: { ...process.env, FORGEJO_URL: world.forge.url, FORGEJO_TOKEN: world.token, FORGEJO_REPOSITORY: `${world.owner}/${world.repo}`, CHECKPOST_CACHE_DIR: join(work, "cache-hot") },
        });
      await cli("save", "--agent", "w", "--session", "s", "--phase", "clone_complete", "--data", '{"step":3}');
      const health = JSON.parse((await cli("health", "--agent", "w", "--session", "s", "--metrics", '{"q":1}')).stdout) as { issue: number };
      expect(health.issue).toBe(world.issue);
      const latest = JSON.parse((await cli("latest", "--agent", "w", "--session", "s")).stdout) as { phase: string; data: unknown };
      expect(latest).toMatchObject({ phase: "clone_complete", data: { step: 3 } });
      const all = (await cli("latest", "--all-issues", "--agent", "w", "--session", "s")).stdout;
      expect(JSON.parse(all)).toMatchObject({ phase: "clone_complete" });
      const resumed = JSON.parse((await cli("resume", "--agent", "w", "--session", "s", "--map", "implementation-worker")).stdout) as { resume_point: string; state: unknown };
      expect(resumed).toMatchObject({ resume_point: "phase_2_subtasks", state: { step: 3 } });
      // The logger is not in hot.cjs but in hot-log.cjs, required on the first line logged: --debug reaches it.
      const debug = await cli("latest", "--agent", "w", "--session", "s", "--debug");
      const lines = debug.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg?: string; path?: string });
      expect(lines.some((l) => l.msg === "request" && l.path?.includes("/issues"))).toBe(true);
      expect(debug.stderr).not.toContain("could not load");
      expect(debug.stderr).not.toContain(world.token);
    });
  });

  describe("with the bot's optional packages installed", () => {
    beforeAll(() => {
      execFileSync(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", ...OPTIONAL.map((p) => `${p}@${peerRange(p)}`)], {
        cwd: app,
        stdio: "pipe",
      });
    }, 600_000);

    it("checkpost/bot loads the bot", () => {
      const bot = spawnLoaded('const b = await import("checkpost/bot"); if (typeof b.createBot !== "function") throw new Error("no createBot")');
      expect(bot.some((u) => /\/node_modules\/probot\//.test(u))).toBe(true);
    });

    it("the web view's mermaid bundle is there at run time (it answered 500 when mermaid was a dev dependency)", async () => {
      const assets = (await import(join(app, "node_modules/checkpost/dist/embedded-forge/web-assets.js"))) as { webAsset: (p: string) => { body: Buffer; contentType: string } | null };
      const asset = assets.webAsset("/assets/mermaid.min.js");
      expect(asset?.contentType).toMatch(/^text\/javascript/);
      expect(asset?.body.length).toBeGreaterThan(100_000);
    });

    it("type-checks in a strict nodenext TypeScript consumer", () => {
      mkdirSync(join(app, "node_modules/@types"), { recursive: true });
      symlinkSync(join(root, "node_modules/@types/node"), join(app, "node_modules/@types/node"), "dir");
      writeFileSync(
        join(app, "consumer.ts"),
        [
          'import { formatCheckpoint, parseComment, SessionStore, ForgejoApi, ForgejoClient, IMPLEMENTATION_WORKER_PHASE_MAP, type JsonObject } from "checkpost";',
          'import { createBot, type BotConfig } from "checkpost/bot";',
          'const data: JsonObject = { branch_name: "feat/x" };',
          'const body: string = formatCheckpoint({ agent: "a", session: "s", phase: "clone_complete", timestamp: "2026-01-01T00:00:00Z", data });',
          "const kind: string = parseComment(body).kind;",
          'const store = new SessionStore({ api: new ForgejoApi(new ForgejoClient({ url: "http://127.0.0.1:1", token: "t" })), repo: { owner: "o", repo: "r" } });',
          'const fromEnv: SessionStore = SessionStore.fromEnv({ env: { FORGEJO_URL: "http://127.0.0.1:1", FORGEJO_TOKEN: "t", FORGEJO_REPO: "o/r" } });',
          'const point: string | undefined = IMPLEMENTATION_WORKER_PHASE_MAP["clone_complete"];',
          "const start: (c: BotConfig) => Promise<unknown> = (c) => createBot(c, { logger: undefined as never });",
          "export { kind, store, fromEnv, point, start };",
          "",
        ].join("\n"),
      );
      // A deliberate mistake must be caught, so the check can fail.
      writeFileSync(join(app, "wrong.ts"), 'import { formatCheckpoint } from "checkpost";\nformatCheckpoint({ agent: 1 });\n');
      const tsconfig = (file: string) =>
        JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, types: ["node"] }, files: [file] });
      writeFileSync(join(app, "tsconfig.json"), tsconfig("consumer.ts"));
      writeFileSync(join(app, "tsconfig.wrong.json"), tsconfig("wrong.ts"));
      const tsc = join(root, "node_modules/typescript/bin/tsc");
      const ok = spawnTsc(tsc, "tsconfig.json");
      expect(ok.output).toBe("");
      expect(ok.status).toBe(0);
      const bad = spawnTsc(tsc, "tsconfig.wrong.json");
      expect(bad.status).not.toBe(0);
      expect(bad.output).toContain("wrong.ts");
      expect(bad.output).not.toContain("TS5097");
    }, 900_000);
  });
});

function spawnLoaded(code: string): string[] {
  const r = spawnSyncNode(["--import", "./register.mjs", "--input-type=module", "-e", code]);
  if (r.status !== 0) throw new Error(`node failed: ${r.stderr}`);
  return r.stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice(7));
}

/** Paths of files named `name` under a folder. */
function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, name));
    else if (e.name === name) out.push(p);
  }
  return out;
}

/** The range package.json asks for an optional peer, so the test installs what a user would. */
function peerRange(name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
  return manifest.peerDependencies[name] ?? "latest";
}

function spawnSyncNode(args: string[]) {
  return spawnSync(process.execPath, args, { cwd: app, encoding: "utf8" });
}

function spawnTsc(tsc: string, project: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [tsc, "-p", project], { cwd: app, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
