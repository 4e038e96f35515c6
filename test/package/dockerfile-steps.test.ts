/**
 * deploy/Dockerfile without Docker (issue 33, item 3): each stage's COPY and RUN steps run in a temporary
 * folder standing for that stage's /app (npm with --prefer-offline, so the npm cache serves what it holds),
 * then the final stage's CMD runs with the final stage's ENV against the embedded Forgejo, and /healthz must
 * answer 200. The bot exited with ERR_MODULE_NOT_FOUND (prom-client) when the image pruned its packages.
 *
 * What this cannot check, said in the test's output too: the base image (node:20-bookworm-slim: here
 * the Node running the tests), USER node and file ownership (a RUN that touches /data or runs chown is
 * skipped; CHECKPOST_DATA_DIR points at a temporary folder instead), EXPOSE and STOPSIGNAL, and layer
 * caching. Slow (two npm installs and a build): `npm run test:slow`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import { OPTIONAL_PACKAGES } from "../../src/cli/optional-packages.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dockerfile = readFileSync(join(root, "deploy/Dockerfile"), "utf8");

interface Stage {
  name: string;
  dir: string;
  env: Record<string, string>;
  cmd?: string[];
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [op = "", ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(" ") };
    });
}

/** npm commands read the cache first: the same packages, without asking the registry for each. */
const preferOffline = (cmd: string) => cmd.replace(/\bnpm (ci|install)\b/g, "npm $1 --prefer-offline");

/** The environment of a RUN: this process's, without npm's own variables (vitest may run under `npm run`). */
function runEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "NODE_OPTIONS" && k !== "NODE_ENV") env[k] = v;
  return env;
}

const work = mkdtempSync(join(tmpdir(), "checkpost-docker-"));
const skipped: string[] = [];
let forge: ForgeServer | undefined;
let bot: ChildProcess | undefined;

afterAll(async () => {
  bot?.kill("SIGTERM");
  await forge?.close();
  // Asynchronous: two installed trees are large, and a synchronous delete would hold up the worker.
  await rm(work, { recursive: true, force: true });
});

/** Run every stage's steps; return the final stage. */
function build(): Stage {
  const stages: Stage[] = [];
  for (const { op, args } of instructions(dockerfile)) {
    const stage = stages.at(-1);
    if (op === "FROM") {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.length);
      const dir = join(work, `stage-${stages.length}-${name}`);
      mkdirSync(dir, { recursive: true });
      stages.push({ name, dir, env: {} });
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    if (op === "WORKDIR")
      expect(args).toBe("/app"); // each stage's folder stands for /app
    else if (op === "COPY") {
      const words = args.split(/\s+/);
      const from = words[0]?.startsWith("--from=") ? (words.shift() as string).slice("--from=".length) : undefined;
      const dest = words.pop() as string;
      const base = from === undefined ? root : (stages.find((s) => s.name === from)?.dir ?? "");
      expect(base, `COPY --from=${from}`).not.toBe("");
      for (const src of words) {
        const target = dest.endsWith("/") ? join(stage.dir, dest, basename(src)) : join(stage.dir, dest);
        cpSync(join(base, src.replace(/^\/app\//, "")), target, { recursive: true });
      }
    } else if (op === "RUN") {
      if (/\/data\b|\bchown\b/.test(args)) {
        skipped.push(`RUN ${args}`);
        continue;
      }
      const r = spawnSync("sh", ["-c", preferOffline(args)], { cwd: stage.dir, env: runEnv(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      expect(r.status, `RUN ${args} in ${stage.name}:\n${r.stdout}\n${r.stderr}`).toBe(0);
    } else if (op === "ENV") for (const m of args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) stage.env[m[1] as string] = m[2] as string;
    else if (op === "CMD") stage.cmd = JSON.parse(args) as string[];
    else if (["USER", "EXPOSE", "STOPSIGNAL"].includes(op)) skipped.push(`${op} ${args}`);
    else throw new Error(`deploy/Dockerfile: ${op} is not understood by this test; teach it, or keep to FROM, WORKDIR, COPY, RUN, ENV, CMD`);
  }
  const final = stages.at(-1);
  if (!final?.cmd) throw new Error("deploy/Dockerfile has no CMD in its final stage");
  return final;
}

describe("deploy/Dockerfile, its steps run outside Docker", () => {
  it("installs the bot's optional packages in the image (the same list the CLI names)", () => {
    const listed = /BOT_PACKAGES = (\[[^\]]*\])/.exec(readFileSync(join(root, "deploy/bot-package-json.mjs"), "utf8"))?.[1];
    expect(JSON.parse(listed ?? "[]")).toEqual([...OPTIONAL_PACKAGES]);
  });

  it("builds, then its CMD starts the bot against a Forgejo and /healthz answers 200", async () => {
    const final = build();
    // What is not checked here, in the output so a reader of CI's log sees it.
    process.stdout.write(`dockerfile-steps: not checked here: the base image, file ownership and user; skipped:\n  ${skipped.join("\n  ")}\n`);
    expect(skipped.some((s) => s.startsWith("USER "))).toBe(true);

    forge = await startForge({ port: 0 });
    const a = forge.admin;
    a.createUser("checkpost-bot");
    a.createUser("acme");
    a.createRepo("acme", "agents");
    a.addCollaborator("acme", "agents", "checkpost-bot", "admin");
    a.createLabel("acme", "agents", { name: DEFAULT_SESSION_LABEL });
    a.createIssue("acme", "agents", { title: DEFAULT_SESSION_TITLE, body: "", labels: [DEFAULT_SESSION_LABEL] });
    const [program, ...args] = final.cmd as string[];
    expect(program).toBe("node");
    const data = join(work, "data");
    mkdirSync(data);
    bot = spawn(process.execPath, args, {
      cwd: final.dir,
      env: {
        PATH: process.env["PATH"] ?? "",
        ...final.env,
        CHECKPOST_DATA_DIR: data,
        // Loopback and a free port here; the image's HOST=0.0.0.0 and PORT=3000 are for a container.
        HOST: "127.0.0.1",
        PORT: "0",
        FORGEJO_URL: forge.url,
        FORGEJO_TOKEN: a.createToken("checkpost-bot"),
        CHECKPOST_REPOSITORIES: "acme/agents",
        WEBHOOK_SECRET: "dockerfile-steps-secret",
        CHECKPOST_API_TOKEN: "dockerfile-steps-api-token-0123",
        CHECKPOST_TRUSTED_AUTHORS: "agent-1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    bot.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<string>((resolve) => bot?.once("exit", (code) => resolve(`the bot exited (${code}) before it was running:\n${stderr}`)));
    const running = new Promise<string>((resolve) => {
      createInterface({ input: bot?.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        const entry = line.startsWith("{") ? (JSON.parse(line) as { msg?: string; url?: string }) : {};
        if (entry.msg === "checkpost bot running" && entry.url) resolve(entry.url);
      });
    });
    const url = await Promise.race([running, exited.then((why) => Promise.reject(new Error(why)))]);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { login?: string }).login).toBe("checkpost-bot");
  }, 1_800_000);
});
