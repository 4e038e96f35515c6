// What users of gh and tea expect from a CLI (issue 20, item 7): .env and --env-file, a quiet exit on
// a closed pipe, a hint when an agent has no checkpoint, and `status` exiting 3 when something needs attention.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { withEnvFile, envFileFlag } from "../../src/cli/env-file.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/app/cli.ts";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";

let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const root = fileURLToPath(new URL("../..", import.meta.url));
const tempDir = () => mkdtempSync(join(tmpdir(), "checkpost-conv-"));

function io(env: NodeJS.ProcessEnv, cwd = process.cwd()) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env, cwd };
  return { cli, out, err };
}

const envFor = (w: ForgeWorld) => ({ FORGEJO_URL: w.forge.url, FORGEJO_TOKEN: w.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: tempDir() });

describe("env files", () => {
  it("fills unset (and empty) variables from the file; set ones win", () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".env"), "# comment\nFORGEJO_URL=http://from-file:3001\nFORGEJO_TOKEN='quoted token'\nFORGEJO_OWNER=acme\nCHECKPOST_ISSUE=\n");
    const env = withEnvFile({ FORGEJO_URL: "http://from-shell:3001", FORGEJO_OWNER: "" }, dir, undefined);
    expect(env).toMatchObject({ FORGEJO_URL: "http://from-shell:3001", FORGEJO_TOKEN: "quoted token", FORGEJO_OWNER: "acme" });
  });

  it("--env-file replaces ./.env, is resolved from the working directory, and must exist", () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".env"), "A=dot\n");
    writeFileSync(join(dir, "other.env"), "B=other\n");
    expect(withEnvFile({}, dir, "other.env")).toEqual({ B: "other" });
    expect(() => withEnvFile({}, dir, "missing.env")).toThrow(/cannot read --env-file missing\.env/);
    // No .env at all is fine.
    expect(withEnvFile({ X: "1" }, tempDir(), undefined)).toEqual({ X: "1" });
  });

  it("finds --env-file in both spellings, not after --", () => {
    expect(envFileFlag(["status", "--env-file", "a.env"])).toBe("a.env");
    expect(envFileFlag(["--env-file=b.env", "status"])).toBe("b.env");
    expect(envFileFlag(["format", "--", "--env-file", "c.env"])).toBeUndefined();
  });

  it("a command reads its Forgejo settings from .env in the working directory, and --env-file names another", async () => {
    world = await forgeWorld();
    const dir = tempDir();
    const lines = Object.entries(envFor(world)).map(([k, v]) => `${k}=${v}`);
    writeFileSync(join(dir, ".env"), `${lines.join("\n")}\n`);
    const t = io({}, dir);
    expect(await runCli(["init"], t.cli)).toBe(0);
    expect(JSON.parse(t.out.join(""))).toEqual({ issue: world.issue, repo: "agent/work" });

    const elsewhere = tempDir();
    writeFileSync(join(elsewhere, "ci.env"), `${lines.join("\n")}\n`);
    const u = io({}, elsewhere);
    expect(await runCli(["--env-file", "ci.env", "init"], u.cli)).toBe(0);
    const missing = io({}, elsewhere);
    expect(await runCli(["init", "--env-file=nope.env"], missing.cli)).toBe(5);
    expect(missing.err.join("")).toMatch(/cannot read --env-file nope\.env/);
  });
});

describe("--env-file through a real process", () => {
  it("a missing file is checkpost's own error, exit 5, not Node's `node: FILE: not found` exit 9", async () => {
    // As `npm run checkpost -- --env-file …` runs it: the `--` keeps Node 20/22 from reading the flag itself.
    const child = spawn(process.execPath, ["--import", "tsx", "src/app/cli-main.ts", "--", "--env-file", "missing.env", "status"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toMatch(/^checkpost: cannot read --env-file missing\.env/);
    expect(code).toBe(5);
  });
});

describe("a closed pipe", () => {
  it("ends the process quietly (exit 0, nothing on stderr) instead of an EPIPE stack trace", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/app/cli-main.ts", "parse"], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    // The reader is gone before the first write, as with `checkpost history | head -1` after its line.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdin.end("hello");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("resume and latest of an agent with no checkpoint", () => {
  it("answer as before and name the known agents on stderr", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    expect(await runCli(["save", "--agent", "implementation-worker", "--session", "s1", "--phase", "p", "--data", "{}"], io(env).cli)).toBe(0);
    expect(await runCli(["save", "--agent", "review-worker", "--session", "s2", "--phase", "p", "--data", "{}"], io(env).cli)).toBe(0);

    const typo = io(env);
    expect(await runCli(["resume", "--agent", "implementation-worekr", "--session", "s1"], typo.cli)).toBe(0);
    expect(JSON.parse(typo.out.join(""))).toMatchObject({ resume_point: "start", checkpoint: null });
    expect(typo.err.join("")).toBe("checkpost: no checkpoint for implementation-worekr in session s1; known agents: implementation-worker; did you mean implementation-worker?");

    // --existing: the same answer and hint, and exit 4 (documented in --help), for scripts that must not start a new worker.
    const strict = io(env);
    expect(await runCli(["resume", "--agent", "implementation-workr", "--session", "s1", "--existing"], strict.cli)).toBe(4);
    expect(strict.err.join("\n")).toMatch(/did you mean implementation-worker\?/);
    expect(strict.err.join("\n")).toMatch(/--existing: that agent has no checkpoint \(exit 4\)/);
    expect(await runCli(["resume", "--agent", "implementation-worker", "--session", "s1", "--existing"], io(env).cli)).toBe(0);
    expect(await runCli(["latest", "--agent", "nobody", "--existing"], io(env).cli)).toBe(4);
    expect(await runCli(["latest", "--agent", "nobody", "--existing", "--all-issues"], io(env).cli)).toBe(4);

    // A name far from every known one gets no guess.
    const far = io(env);
    expect(await runCli(["resume", "--agent", "planner", "--session", "s1"], far.cli)).toBe(0);
    expect(far.err.join("")).not.toMatch(/did you mean/);

    const wrongSession = io(env);
    expect(await runCli(["resume", "--agent", "review-worker", "--session", "s1"], wrongSession.cli)).toBe(0);
    expect(wrongSession.err.join("")).toBe("checkpost: no checkpoint for review-worker in session s1; known agents: implementation-worker; review-worker has checkpoints in sessions: s2");

    const latest = io(env);
    expect(await runCli(["latest", "--agent", "nobody"], latest.cli)).toBe(0);
    expect(latest.out.join("").trim()).toBe("null");
    expect(latest.err.join("")).toBe("checkpost: no checkpoint for nobody in any session; known agents: implementation-worker, review-worker");

    const allIssues = io(env);
    expect(await runCli(["latest", "--agent", "nobody", "--session", "s2", "--all-issues"], allIssues.cli)).toBe(0);
    expect(allIssues.err.join("")).toBe("checkpost: no checkpoint for nobody in session s2; known agents: review-worker");

    // A hit prints nothing on stderr.
    const hit = io(env);
    expect(await runCli(["resume", "--agent", "review-worker", "--session", "s2"], hit.cli)).toBe(0);
    expect(hit.err).toEqual([]);
  });
});

describe("status", () => {
  it("exits 0 when all is well and 3 when something needs attention, text, --json and --watch alike", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    expect(await runCli(["health", "--agent", "w", "--session", "s", "--metrics", "{}"], io(env).cli)).toBe(0);
    expect(await runCli(["status"], io(env).cli)).toBe(0);
    expect(await runCli(["status", "--json"], io(env).cli)).toBe(0);

    // A health status that does not read as fine needs a person.
    expect(await runCli(["health", "--agent", "w", "--session", "s", "--metrics", "{}", "--status", "Blocked"], io(env).cli)).toBe(0);
    const text = io(env);
    expect(await runCli(["status"], text.cli)).toBe(3);
    expect(text.out.join("\n")).toMatch(/NEEDS ATTENTION/);
    expect(text.err).toEqual([]); // the exit code is the signal; nothing more to say
    expect(await runCli(["status", "--json"], io(env).cli)).toBe(3);
    expect(await runCli(["status", "--watch", "0.01", "--times", "2"], io(env).cli)).toBe(3);
  });
});

describe("--help", () => {
  it("has examples, the exit codes and an environment section", async () => {
    const t = io({});
    expect(await runCli(["--help"], t.cli)).toBe(0);
    const help = t.out.join("");
    expect(help).toMatch(/Examples:\n {2}checkpost init/);
    expect(help).toMatch(/3 status: something needs attention/);
    expect(help).toMatch(/Environment \(also read from \.\/\.env or --env-file/);
    expect(help).toMatch(/FORGEJO_TOKEN/);
    const s = io({});
    expect(await runCli(["status", "--help"], s.cli)).toBe(0);
    expect(s.out.join("")).toMatch(/Examples:\n {2}checkpost status/);
  });
});

describe("a command whose optional package is not installed", () => {
  it("names the package and the install command instead of a module-resolution error", async () => {
    const { missingOptionalPackage } = await import("../../src/cli/optional-packages.ts");
    const esm = Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /x/dist/cli-bundle/chunk.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const cjs = Object.assign(new Error("Cannot find module 'mermaid/dist/mermaid.min.js'\nRequire stack: …"), { code: "MODULE_NOT_FOUND" });
    const other = Object.assign(new Error("Cannot find package 'left-pad' imported from /x"), { code: "ERR_MODULE_NOT_FOUND" });
    expect([esm, cjs, other, new Error("Cannot find package 'pg'")].map(missingOptionalPackage)).toEqual(["better-sqlite3", "mermaid", undefined, undefined]);
  });
});
