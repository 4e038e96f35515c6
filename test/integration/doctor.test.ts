/** `checkpost doctor` against the embedded Forgejo and a running bot. */
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/app/cli.ts";
import type { DoctorCheck } from "../../src/cli/commands/doctor.ts";
import { API_TOKEN, botWorld, type BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function doctor(env: NodeJS.ProcessEnv, args: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env, cwd: process.cwd() };
  const code = await runCli(["doctor", "--json", ...args], cli);
  const report = JSON.parse(out.join("")) as { ok: boolean; checks: DoctorCheck[] };
  const status = (name: string) => report.checks.filter((c) => c.check === name).map((c) => c.status);
  const text = (name: string) =>
    report.checks
      .filter((c) => c.check === name)
      .map((c) => `${c.message} ${c.fix ?? ""}`)
      .join("\n");
  return { code, report, status, text, err: err.join("") };
}

const healthyEnv = (world: BotWorld, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  FORGEJO_URL: world.forge.url,
  FORGEJO_TOKEN: world.agentToken, // the repository's owner: may read hooks and permissions
  FORGEJO_REPOSITORY: "agent/work",
  CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot",
  CHECKPOST_SIGNING_KEY: "a-signing-key-0123456789",
  CHECKPOST_API_TOKEN: API_TOKEN,
  ...extra,
});

describe("checkpost doctor", () => {
  it("warns loudly when its token is the bot's own login: the bot ignores commands made with it (issue 19.8)", async () => {
    w = await botWorld({ signingKey: "a-signing-key-0123456789", trustedAuthors: ["agent"] });
    const r = await doctor({ ...healthyEnv(w), FORGEJO_TOKEN: w.botToken }, ["--bot-url", w.bot.url]);
    const check = r.report.checks.find((c) => c.check === "bot-login");
    expect(check).toMatchObject({ status: "warn" });
    expect(check?.message).toMatch(/IGNORES every \/checkpost command and dashboard tick/);
  });

  it("exits 0 with every check ok on a healthy deployment", async () => {
    w = await botWorld({ signingKey: "a-signing-key-0123456789", trustedAuthors: ["agent"] });
    const r = await doctor(healthyEnv(w), ["--bot-url", w.bot.url]);
    expect(r.report.checks.filter((c) => c.status !== "ok")).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.ok).toBe(true);
    expect(r.report.checks.map((c) => c.check)).toEqual([
      "config",
      "forgejo",
      "token",
      "repository",
      "identity",
      "session-issue",
      "ignored-authors",
      "webhook",
      "trusted-authors",
      "signing-key",
      "bot-login",
      "bot-api",
    ]);
    expect(r.text("bot-login")).toMatch(/runs as checkpost-bot, not as agent/);
    expect(r.text("forgejo")).toContain("13.0.5+gitea-");
    expect(r.text("token")).toContain("agent");
    expect(r.text("session-issue")).toContain(`#${w.issue}`);
    expect(r.text("webhook")).toContain(`${w.bot.url}/api/github/webhooks`);
    expect(r.text("bot-api")).toContain(`agent/work#${w.issue}`);
  });

  it("finds what is wrong and exits 1: no signing key, an untrusted writer, a trusted login that does not exist, a refused API token, no webhook", async () => {
    w = await botWorld({}, { webhook: false });
    w.forge.admin.addCollaborator("agent", "work", "mallory", "write");
    const r = await doctor(healthyEnv(w, { CHECKPOST_SIGNING_KEY: "", CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot,ghost-user", CHECKPOST_API_TOKEN: "not-the-bots-token-0123456789" }), [
      "--bot-url",
      w.bot.url,
    ]);
    expect(r.code).toBe(1);
    expect(r.report.ok).toBe(false);
    expect(r.status("signing-key")).toEqual(["warn"]);
    expect(r.text("signing-key")).toMatch(/roll an agent back/);
    expect(r.status("trusted-authors")).toEqual(["fail", "warn"]);
    expect(r.text("trusted-authors")).toMatch(/ghost-user do not exist/);
    expect(r.text("trusted-authors")).toMatch(/mallory can write but are not trusted/);
    expect(r.status("webhook")).toEqual(["fail"]);
    expect(r.text("webhook")).toMatch(/install-webhook --bot-url/);
    expect(r.status("bot-api")).toEqual(["fail"]);
    expect(r.text("bot-api")).toMatch(/refused CHECKPOST_API_TOKEN/);
    expect(r.status("forgejo")).toEqual(["ok"]);
  });

  it("warns when the bot has rejected deliveries (a webhook secret that does not match)", async () => {
    w = await botWorld({ signingKey: "a-signing-key-0123456789", trustedAuthors: ["agent"] });
    const forged = await fetch(`${w.bot.url}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "d-1", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: JSON.stringify({ action: "created" }),
    });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    const r = await doctor(healthyEnv(w), ["--bot-url", w.bot.url]);
    expect(r.status("bot-deliveries")).toEqual(["warn"]);
    expect(r.text("bot-deliveries")).toMatch(/rejected 1 webhook deliveries.*WEBHOOK_SECRET/s);
    expect(r.text("bot-api")).toContain("rejected 1");
    expect(r.code).toBe(1);
  });

  it("skips, and says so, what only a repository admin may read, so a correct agent set-up passes", async () => {
    w = await botWorld();
    const r = await doctor(healthyEnv(w, { FORGEJO_TOKEN: w.botToken, CHECKPOST_TRUSTED_AUTHORS: "agent" }));
    expect(r.status("repository")).toEqual(["ok"]);
    expect(r.text("repository")).toContain("checkpost-bot has write access");
    expect(r.status("webhook")).toEqual(["skip"]);
    expect(r.text("webhook")).toMatch(/repository admin only.*run doctor with the bot's or an admin's token/);
    expect(r.status("trusted-authors")).toEqual(["skip"]);
    expect(r.status("bot")).toEqual(["skip"]);
    expect(r.code).toBe(0);
  });

  it("checks identities: a site admin's token, the bot's own login used by an agent, a bot login not trusted or missing", async () => {
    w = await botWorld({ signingKey: "a-signing-key-0123456789", trustedAuthors: ["agent"] });
    const ok = await doctor(healthyEnv(w, { CHECKPOST_BOT_LOGIN: "checkpost-bot" }));
    expect(ok.status("identity")).toEqual(["ok"]);
    expect(ok.text("identity")).toMatch(/agent: not a site administrator; bot checkpost-bot; the bot checkpost-bot has write access/);
    // An agent set-up that saves with the bot's own token.
    const asBot = await doctor(healthyEnv(w, { FORGEJO_TOKEN: w.botToken, CHECKPOST_BOT_LOGIN: "checkpost-bot", CHECKPOST_TRUSTED_AUTHORS: "agent" }));
    expect(asBot.status("identity")).toEqual(["warn"]);
    expect(asBot.text("identity")).toMatch(/the token is the bot's own \(checkpost-bot\): the bot ignores slash commands/);
    expect(asBot.code).toBe(1);
    // The bot's login not trusted by this reader, and one that does not exist.
    expect((await doctor(healthyEnv(w, { CHECKPOST_BOT_LOGIN: "checkpost-bot", CHECKPOST_TRUSTED_AUTHORS: "" }))).text("identity")).toMatch(
      /not a trusted author here.*add checkpost-bot to CHECKPOST_TRUSTED_AUTHORS/s,
    );
    expect((await doctor(healthyEnv(w, { CHECKPOST_BOT_LOGIN: "no-such-bot", CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot,no-such-bot" }))).text("identity")).toMatch(/no-such-bot does not exist/);
    // A site administrator's token.
    w.forge.admin.createUser("root", { isAdmin: true });
    w.forge.admin.addCollaborator("agent", "work", "root", "write");
    const root = await doctor(healthyEnv(w, { FORGEJO_TOKEN: w.forge.admin.createToken("root"), CHECKPOST_TRUSTED_AUTHORS: "checkpost-bot,agent" }));
    expect(root.status("identity")).toEqual(["warn"]);
    expect(root.text("identity")).toMatch(/root is a site administrator.*non-admin user/s);
  });

  it("fails on a read-only token user and a missing session issue", async () => {
    w = await botWorld();
    const reader = w.forge.admin.createToken("mallory");
    const r = await doctor(healthyEnv(w, { FORGEJO_TOKEN: reader, CHECKPOST_SESSION_LABEL: "no-such-label" }));
    expect(r.status("repository")).toEqual(["fail"]);
    expect(r.text("repository")).toMatch(/read-only access.*give mallory write access/s);
    expect(r.status("session-issue")).toEqual(["fail"]);
    expect(r.text("session-issue")).toMatch(/checkpost init/);
  });

  it("stops early on an unreachable URL or a refused token, and never prints URL credentials", async () => {
    w = await botWorld();
    const dead = await doctor(healthyEnv(w, { FORGEJO_URL: "http://user:s3cret-pass@127.0.0.1:9" }));
    expect(dead.code).toBe(1);
    expect(dead.status("forgejo")).toEqual(["fail"]);
    expect(dead.report.checks.map((c) => c.check)).toEqual(["config", "forgejo"]);
    expect(JSON.stringify(dead.report)).not.toContain("s3cret-pass");
    expect(JSON.stringify(dead.report)).toContain("***@127.0.0.1:9");
    const badToken = await doctor(healthyEnv(w, { FORGEJO_TOKEN: "0".repeat(40) }));
    expect(badToken.status("token")).toEqual(["fail"]);
    expect(badToken.report.checks.at(-1)?.check).toBe("token");
  });

  it("reports missing configuration as failed checks", async () => {
    const r = await doctor({});
    expect(r.code).toBe(1);
    expect(r.report.checks.every((c) => c.check === "config" && c.status === "fail")).toBe(true);
    expect(r.report.checks).toHaveLength(3);
  });

  it("prints a readable report without --json", async () => {
    w = await botWorld();
    const out: string[] = [];
    const cli: CliIo = { out: (t) => out.push(t), err: () => {}, readStdin: async () => "", env: healthyEnv(w, { CHECKPOST_SIGNING_KEY: "" }), cwd: process.cwd() };
    expect(await runCli(["doctor"], cli)).toBe(1);
    const text = out.join("\n");
    expect(text).toMatch(/^ok {4}config/m);
    expect(text).toMatch(/^WARN {2}signing-key/m);
    expect(text).toMatch(/fix: set the same CHECKPOST_SIGNING_KEY/);
    expect(text).toMatch(/thing\(s\) to fix$/);
  });
});
