/**
 * Issue 19.8: the demo `npm start` makes (the bot's wiring in src/app/bot-main.ts, without FORGEJO_URL).
 * Agents get their own non-admin user; the bot's site-admin token stays in its owner-only file and is
 * never printed; the printed lines use the agent identity; and the fresh demo passes `checkpost doctor`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { DoctorCheck } from "../../src/cli/commands/doctor.ts";
import { runCli } from "../../src/app/cli.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  child = undefined;
});

/** Starts the demo and resolves with its stdout once the "check:" line is printed. */
function startDemo(dataDir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, CHECKPOST_DATA_DIR: dataDir, PORT: "0", CHECKPOST_FORGE_PORT: "0", LOG_LEVEL: "warn" };
  for (const k of ["FORGEJO_URL", "FORGEJO_TOKEN", "CHECKPOST_API_TOKEN", "CHECKPOST_SIGNING_KEY", "CHECKPOST_TRUSTED_AUTHORS", "WEBHOOK_SECRET"]) delete env[k];
  const c = spawn(process.execPath, ["--import", "tsx", "src/app/bot-main.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  child = c;
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    c.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (/^check: .*$/m.test(out)) resolve(out);
    });
    c.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    c.once("exit", (code) => reject(new Error(`the demo exited (${code}) before it was ready: ${err}`)));
  });
}

const parseEnvFile = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split("\n")
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );

describe("npm start's identities", () => {
  it("gives agents their own non-admin token, never prints the bot's, and passes checkpost doctor", { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "demo-ids-"));
    const out = await startDemo(dataDir);
    const botToken = readFileSync(join(dataDir, "forge", "bot-token"), "utf8").trim();
    expect(botToken).toMatch(/^[0-9a-f]{40}$/);
    expect(out).not.toContain(botToken);
    for (const f of ["forge/bot-token", "forge/agent-token", "agent.env", "signing-key", "api-token"]) expect(statSync(join(dataDir, f)).mode & 0o777, f).toBe(0o600);
    // Each token file is named for whose it is: no `demo-token` (the bot's, before) is left.
    expect(existsSync(join(dataDir, "forge", "demo-token"))).toBe(false);
    expect(statSync(join(dataDir, "forge")).mode & 0o777).toBe(0o700);
    const agentEnv = parseEnvFile(readFileSync(join(dataDir, "agent.env"), "utf8"));
    expect(agentEnv["FORGEJO_TOKEN"]).toBe(readFileSync(join(dataDir, "forge", "agent-token"), "utf8").trim());
    expect(agentEnv["FORGEJO_TOKEN"]).not.toBe(botToken);
    expect(out).toMatch(/^try: \(set -a; \. .*agent\.env; set \+a; node bin\/checkpost\.cjs save /m);
    const botUrl = /^check: .*doctor --bot-url (\S+)\)$/m.exec(out)?.[1] as string;

    const me = (await (await fetch(`${agentEnv["FORGEJO_URL"]}/api/v1/user`, { headers: { authorization: `token ${agentEnv["FORGEJO_TOKEN"]}` } })).json()) as { login: string; is_admin: boolean };
    expect(me).toMatchObject({ login: "agent", is_admin: false });

    const run = async (args: string[]) => {
      const o: string[] = [];
      const e: string[] = [];
      const code = await runCli(args, {
        out: (s) => o.push(s),
        err: (s) => e.push(s),
        readStdin: async () => "",
        env: { ...agentEnv, CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "demo-cache-")) },
        cwd: process.cwd(),
      });
      return { code, out: o.join(""), err: e.join("") };
    };
    const doctor = await run(["doctor", "--json", "--bot-url", botUrl]);
    const report = JSON.parse(doctor.out) as { ok: boolean; checks: DoctorCheck[] };
    expect(report.checks.filter((c) => c.status !== "ok" && c.status !== "skip")).toEqual([]);
    expect(report.checks.find((c) => c.check === "identity")?.message).toMatch(/^agent: not a site administrator; bot checkpost/);
    expect(doctor.code).toBe(0);

    // A save as the agent is the agent's, and the bot believes it.
    const saved = await run(["save", "--agent", "implementation-worker", "--session", "demo", "--phase", "clone_complete", "--data", '{"branch_name":"feat/demo"}']);
    expect(saved.code, saved.err).toBe(0);
    const comment = (await (await fetch(`${agentEnv["FORGEJO_URL"]}/api/v1/repos/checkpost/demo/issues/comments/${(JSON.parse(saved.out) as { comment_id: number }).comment_id}`)).json()) as {
      user: { login: string };
    };
    expect(comment.user.login).toBe("agent");
    let phase: string | undefined;
    for (let i = 0; i < 50 && phase !== "clone_complete"; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100)); // the webhook delivery runs in the demo's process: nothing here to await
      const answer = await fetch(`${botUrl}/api/resume?agent=implementation-worker&session=demo`, { headers: { authorization: `Bearer ${agentEnv["CHECKPOST_API_TOKEN"]}` } });
      phase = answer.status === 200 ? ((await answer.json()) as { phase?: string }).phase : undefined;
    }
    expect(phase).toBe("clone_complete");
  });
});
