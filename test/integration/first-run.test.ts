/** `npm start`'s first run: port clashes named before anything is built, and the demo token reused. */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedForgejo } from "../../src/app/embedded-forgejo.ts";

const run = promisify(execFile);
const start = fileURLToPath(new URL("../../scripts/start.mjs", import.meta.url));

let holder: Server | undefined;
afterEach(() => holder?.close());

async function occupy(): Promise<number> {
  holder = createServer();
  await new Promise<void>((resolve) => holder?.listen(0, "127.0.0.1", resolve));
  const address = holder.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("npm start", () => {
  it.each([["PORT"], ["CHECKPOST_FORGE_PORT"]])("names %s when its port is taken, and builds nothing", async (variable) => {
    const port = await occupy();
    const env = { ...process.env, CHECKPOST_DATA_DIR: mkdtempSync(join(tmpdir(), "start-")), PORT: "0", CHECKPOST_FORGE_PORT: "0", [variable]: String(port) };
    delete env.FORGEJO_URL;
    const err = await run(process.execPath, [start], { env, encoding: "utf8" }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`port ${port} on 127.0.0.1 is in use: set ${variable} to a free port`);
    expect(err?.stderr).not.toContain("building");
  });

  it.skipIf(process.platform !== "linux")("a pid file naming a zombie or another program is not a running checkpost (issue 28.6)", async () => {
    // A process whose child exited and is never reaped: that child stays a zombie while it runs.
    const parent = spawn("sh", ["-c", "sleep 0 & exec sleep 30"], { stdio: "ignore" });
    try {
      let zombie = 0;
      for (let i = 0; i < 100 && !zombie; i++) {
        const kids = readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, "utf8").trim();
        const pid = Number(kids.split(" ")[0]);
        if (pid && readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")) zombie = pid;
        else await new Promise((r) => setTimeout(r, 20));
      }
      expect(zombie).toBeGreaterThan(0);
      const port = await occupy();
      for (const pid of [zombie, process.pid]) {
        const dataDir = mkdtempSync(join(tmpdir(), "start-"));
        writeFileSync(join(dataDir, "checkpost.pid"), `${pid}\n`);
        const env = { ...process.env, CHECKPOST_DATA_DIR: dataDir, PORT: String(port), CHECKPOST_FORGE_PORT: "0" };
        const err = await run(process.execPath, [start], { env, encoding: "utf8" }).then(
          () => null,
          (e: { code: number; stderr: string }) => e,
        );
        // Past the pid check: stopped at the port taken on purpose, never "already running".
        expect(err?.stderr).not.toContain("already running");
        expect(err?.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      }
    } finally {
      parent.kill("SIGKILL");
    }
  });

  it("reuses the bot's token across restarts, kept in an owner-only file named for it (a demo-token from before is taken over)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "embedded-"));
    const logger = pino({ level: "silent" });
    const opts = { dataDir, port: 0, title: "[Automated] CleverAgents Build Session", label: "Type/Automation", logger };
    const first = await startEmbeddedForgejo(opts);
    await first.forge.close();
    const second = await startEmbeddedForgejo(opts);
    await second.forge.close();
    expect(second.token).toBe(first.token);
    expect(statSync(join(dataDir, "forge", "bot-token")).mode & 0o777).toBe(0o600);
    // A data folder from before this name: its demo-token is read, kept as bot-token, and removed.
    renameSync(join(dataDir, "forge", "bot-token"), join(dataDir, "forge", "demo-token"));
    const third = await startEmbeddedForgejo(opts);
    await third.forge.close();
    expect(third.token).toBe(first.token);
    expect(existsSync(join(dataDir, "forge", "demo-token"))).toBe(false);
    expect(readFileSync(join(dataDir, "forge", "bot-token"), "utf8").trim()).toBe(first.token);
  });
});
