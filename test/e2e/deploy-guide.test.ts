/**
 * docs/deploy.md, run as written (issue 33, item 4): every ```sh block of the guide, in order, in one bash
 * (`set -e`), against the embedded Forgejo standing in for a real one with the guide's separate accounts:
 * `checkpost-bot` a repository admin (not a site admin), `agent-1` and `alice` writers. What the guide
 * marks ```sh manual (Forgejo's admin pages, docker, kubectl, a network clone) is done here by the test
 * (the accounts and tokens) or not at all; any other block fails the test. The guide's `checkpost` is
 * this checkout's bin (what `npm link` puts on PATH) and its `npm start` builds dist/ when src/ changed,
 * so this runs in `npm run test:slow`.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../src/forgejo-client/index.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const guide = readFileSync(join(root, "docs/deploy.md"), "utf8");

/** The guide's fenced blocks: info string and body. */
function fencedBlocks(md: string): { info: string; body: string; line: number }[] {
  const out: { info: string; body: string; line: number }[] = [];
  const lines = md.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i] as string);
    out.push({ info: (open[1] ?? "").trim(), body: body.join("\n"), line: start + 1 });
  }
  return out;
}

/** Newest modification time under a folder (ms). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) t = Math.max(t, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs);
  return t;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const work = mkdtempSync(join(tmpdir(), "checkpost-deploy-guide-"));
let forge: ForgeServer | undefined;
let botPid: number | undefined;

afterAll(async () => {
  if (botPid) {
    try {
      process.kill(botPid, "SIGTERM");
    } catch {}
  }
  await forge?.close();
  await rm(work, { recursive: true, force: true });
});

describe("docs/deploy.md", () => {
  const blocks = fencedBlocks(guide);

  it("has only blocks that are run (```sh) or marked manual with a reason (```sh manual)", () => {
    const bad = blocks.filter((b) => b.info !== "sh" && b.info !== "sh manual").map((b) => `line ${b.line}: \`\`\`${b.info}`);
    expect(bad).toEqual([]);
    const unexplained = blocks.filter((b) => b.info === "sh manual" && !/^# /.test(b.body)).map((b) => `line ${b.line}`);
    expect(unexplained, "a manual block starts with a # line saying why it cannot run here").toEqual([]);
    expect(blocks.filter((b) => b.info === "sh").length).toBeGreaterThanOrEqual(6);
    expect(guide).not.toMatch(/npx checkpost/);
  });

  it("runs as written against a Forgejo with separate accounts: the first save is the bot's, doctor passes", async () => {
    forge = await startForge({ port: 0 });
    const a = forge.admin;
    // What the guide's manual block does on Forgejo's pages.
    for (const u of ["acme", "checkpost-bot", "agent-1", "alice"]) a.createUser(u);
    a.createRepo("acme", "agents");
    a.addCollaborator("acme", "agents", "checkpost-bot", "admin");
    a.addCollaborator("acme", "agents", "agent-1", "write");
    a.addCollaborator("acme", "agents", "alice", "write");
    const botToken = a.createToken("checkpost-bot");
    const agentToken = a.createToken("agent-1");

    // The manual install block (`npm ci && npm run build`, then `npm link`): built here when src/ is newer
    // than dist/ (CI may have built it already), and `checkpost` on PATH is this checkout's bin.
    const built = existsSync(join(root, "dist/cli-bundle/main.js")) ? statSync(join(root, "dist/cli-bundle/main.js")).mtimeMs : 0;
    if (built < newest(join(root, "src"))) execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "pipe" });
    const bin = join(work, "bin");
    mkdirSync(bin);
    symlinkSync(join(root, "bin/checkpost.cjs"), join(bin, "checkpost"));
    const port = await freePort();
    const script = ["set -e", ...blocks.filter((b) => b.info === "sh").map((b) => b.body)].join("\n");
    const env: NodeJS.ProcessEnv = {
      PATH: `${bin}:${process.env["PATH"] ?? ""}`,
      HOME: work,
      FORGEJO_URL: forge.url,
      BOT_TOKEN: botToken,
      AGENT_TOKEN: agentToken,
      CHECKPOST_DIR: root,
      BOT_PORT: String(port),
    };
    const child = spawn("bash", ["-c", script], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      botPid = Number(readFileSync(join(work, "checkpost-data/checkpost.pid"), "utf8").trim()) || undefined;
    } catch {}
    let log = "";
    try {
      log = readFileSync(join(work, "bot.log"), "utf8");
    } catch {}
    expect(code, `the guide's commands failed:\n${out}\n--- bot.log ---\n${log}`).toBe(0);

    // The agent's first save is on the dashboard (a row, no ignored author), and the bot's start-up said the one trust line.
    const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token: botToken }));
    const { issues } = await api.listIssues({ owner: "acme", repo: "agents" }, { state: "open" });
    const deadline = Date.now() + 5_000;
    let body = "";
    while (Date.now() < deadline) {
      body = (await api.getIssue({ owner: "acme", repo: "agents" }, issues[0]?.number ?? 1)).body;
      if (body.includes("1 agent session ·")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(body).toContain("1 agent session ·");
    expect(body).not.toContain("Ignored authors");
    expect(log.split("\n").filter((l) => l.includes('"msg":"trust:')).length).toBe(1);
    expect(log).toContain("alice can write but is not a trusted author");
  }, 1_200_000);
});
