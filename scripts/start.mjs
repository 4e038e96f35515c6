#!/usr/bin/env node
// `npm start`: check the ports and that no checkpost already runs from this folder BEFORE building,
// so a clash is a one-line message naming the variable to change (never a bare EADDRINUSE after
// rebuilding dist/ under a running instance); rebuild only when src/ changed; then run the bot.
// Plain JavaScript: it runs before anything is compiled.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = process.env;
const dataDir = env.CHECKPOST_DATA_DIR || ".data";
const pidFile = join(dataDir, "checkpost.pid");

function fail(message) {
  process.stderr.write(`checkpost: ${message}\n`);
  process.exit(1);
}

// 1. Another instance from this data directory? After a kill the pid file stays: its pid may be a
// zombie not yet reaped, or reused by another program. Only a live process running the bot counts
// (where /proc tells; elsewhere, any live process does). Issue 28.6.
function botRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // no /proc (macOS): the pid is live, take it as ours
  }
  // "pid (comm) S …": the state follows the last ")"; Z (zombie) and X (dead) run nothing.
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  if (state === "Z" || state === "X") return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .some((arg) => arg.endsWith("bot-main.js"));
  } catch {
    return false; // gone meanwhile
  }
}
if (existsSync(pidFile)) {
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (botRunning(pid)) fail(`checkpost is already running (pid ${pid}, data in ${dataDir}); stop it first, or start another with its own CHECKPOST_DATA_DIR, PORT and CHECKPOST_FORGE_PORT.`);
}

// 2. Free ports, named by the variable that sets them.
const host = env.HOST || "127.0.0.1";
const ports = [["PORT", Number(env.PORT || 3000)]];
if (!env.FORGEJO_URL) ports.push(["CHECKPOST_FORGE_PORT", Number(env.CHECKPOST_FORGE_PORT || 3001)]);
const free = (port) =>
  new Promise((resolve) => {
    if (port === 0) return resolve(true);
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
for (const [name, port] of ports) if (!(await free(port))) fail(`port ${port} on ${host} is in use: set ${name} to a free port (e.g. ${name}=${port + 10} npm start), or stop what holds it.`);

// 3. Build only when a source file is newer than the build.
const newest = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((t, e) => Math.max(t, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
const built = existsSync(join(root, "dist/app/bot-main.js")) ? statSync(join(root, "dist/app/bot-main.js")).mtimeMs : 0;
if (built < newest(join(root, "src"))) {
  process.stderr.write("checkpost: building dist/ (src/ changed)…\n");
  const b = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
  if (b.status !== 0) fail("the build failed (see above)");
}

// 4. Run the bot compiled, with the memory settings the benchmarks use; keep the pid while it runs.
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
const bot = JSON.parse(readFileSync(join(root, "scripts/bot-command.json"), "utf8"));
const child = spawn(process.execPath, [...bot.nodeArgs, ...process.argv.slice(2)], { cwd: root, stdio: "inherit", env: { ...bot.env, ...env } });
writeFileSync(pidFile, `${child.pid}\n`);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => {
  rmSync(pidFile, { force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
