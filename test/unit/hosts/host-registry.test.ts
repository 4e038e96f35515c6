// Issue 31, item 1 and "Done when": hosts are listed in one registry (src/hosts/index.ts), the roots pick
// one by CHECKPOST_HOST, and a new host is one file plus one line. The toy host (toy-host.ts) is added
// here by that one line, then runs the IssueHost contract, the CLI's session store and the bot's tracker.
import { createHmac } from "node:crypto";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { cliContext } from "../../../src/app/cli-context.ts";
import { startBot } from "../../../src/app/start-bot.ts";
import { createMemoryProjectionStore } from "../../../src/bot-state/index.ts";
import type { Bot } from "../../../src/bot/create-bot.ts";
import { ClientEnvSchema, parseEnv } from "../../../src/config/env.ts";
import { defaultBotConfig } from "../../../src/config/bot-env.ts";
import { ConfigError } from "../../../src/errors.ts";
import { FORGEJO_CAPABILITIES, ForgejoApi } from "../../../src/forgejo-client/index.ts";
import { DEFAULT_HOST, HOSTS, pickHost } from "../../../src/hosts/index.ts";
import type { IssueHost } from "../../../src/ports/issue-host.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../../src/session-client/index.ts";
import { TIMERS_OFF } from "../../helpers/bot-world.ts";
import { issueHostContract } from "../../helpers/issue-host-contract.ts";
import { TOY_CAPABILITIES, toyHost, toyServers } from "./toy-host.ts";

/** The registry with the toy host: the one line a new host adds. */
const hosts = new Map([...HOSTS, [toyHost.name, toyHost]]);

const repo = { owner: "agent", repo: "work" };
let urls = 0;
const freshUrl = () => `http://toy-${++urls}.test`;

/** The session issue, as a person (or `checkpost init`) makes it. */
async function sessionIssue(api: IssueHost) {
  return api.openSessionIssue(repo, { title: DEFAULT_SESSION_TITLE, body: "Notes from a person.\n", labels: [DEFAULT_SESSION_LABEL] });
}

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  bot = undefined;
  toyServers.clear();
});

describe("the host registry", () => {
  it("lists Forgejo, the default, with its capabilities; opens its adapter", () => {
    expect([...HOSTS.keys()]).toEqual(["forgejo"]);
    expect(DEFAULT_HOST).toBe("forgejo");
    const forgejo = pickHost(undefined);
    expect(forgejo.capabilities).toEqual(FORGEJO_CAPABILITIES);
    const { api, apiUrl } = forgejo.open({ url: "http://forge.test/", token: "t" });
    expect(api).toBeInstanceOf(ForgejoApi);
    expect(apiUrl).toBe("http://forge.test/api/v1");
  });

  it("CHECKPOST_HOST defaults to forgejo; an unknown host is a ConfigError naming the setting and the known hosts", () => {
    expect(parseEnv(ClientEnvSchema, {}).CHECKPOST_HOST).toBe("forgejo");
    expect(pickHost(parseEnv(ClientEnvSchema, { CHECKPOST_HOST: " Toy " }).CHECKPOST_HOST, hosts)).toBe(toyHost);
    expect(() => pickHost("gitlab")).toThrow(ConfigError);
    expect(() => pickHost("gitlab", hosts)).toThrow(/CHECKPOST_HOST=gitlab .*forgejo, toy/);
    // The toy is in the test's registry only.
    expect(() => pickHost("toy")).toThrow(ConfigError);
  });
});

describe("IssueHost contract: the toy host, from the registry", () => {
  issueHostContract(async () => pickHost("toy", hosts).open({ url: freshUrl(), token: "token-of-agent" }).api, TOY_CAPABILITIES, {
    verify: toyHost.verifyDelivery,
    sign: (body, secret) => ({ "x-toy-signature": createHmac("sha256", secret).update(body).digest("hex") }),
  });
});

describe("the toy host behind the roots", () => {
  it("the CLI's context picks it by CHECKPOST_HOST: a save and a resume round-trip on it", async () => {
    const url = freshUrl();
    const io = {
      out: () => {},
      err: () => {},
      readStdin: async () => "",
      cwd: "/",
      envComplete: true,
      env: { CHECKPOST_HOST: "toy", FORGEJO_URL: url, FORGEJO_TOKEN: "token-of-agent", FORGEJO_REPO: "agent/work", CHECKPOST_CACHE_DIR: "" },
    };
    const ctx = cliContext(io, {}, { hosts, issueCache: false });
    expect(ctx.api.capabilities).toEqual(TOY_CAPABILITIES);
    await sessionIssue(ctx.api);
    const saved = await ctx.store.save({ agent: "worker", session: "s1", phase: "clone_complete", data: { branch: "b" } });
    const server = toyServers.get(url);
    expect(server?.issues.size).toBe(1);
    expect([...(server?.comments.values() ?? [])].flat().map((c) => [c.id, c.author])).toEqual([[saved.comment_id, "agent"]]);
    const resumed = await ctx.store.resume("worker", "s1", { clone_complete: "install" });
    expect(resumed.state).toMatchObject({ branch: "b" });
  });

  it("the bot picks it by config.issueHost: its tracker folds the agent's checkpoint and writes the dashboard", async () => {
    const url = freshUrl();
    const agent = pickHost("toy", hosts).open({ url, token: "token-of-agent" }).api;
    const issue = await sessionIssue(agent);
    const server = toyServers.get(url);
    server?.permissions.set("checkpost-bot", "write");
    await new SessionStore({ api: agent, repo, issue: issue.number }).save({ agent: "worker", session: "s1", phase: "clone_complete", data: {} });

    const config = {
      ...defaultBotConfig({ url, token: "token-of-checkpost-bot" }, [repo]),
      issueHost: "toy",
      trustedAuthors: ["agent"],
      webhookSecret: "toy-webhook-secret",
      port: 0,
      ...TIMERS_OFF,
      retries: 0,
    };
    bot = await startBot(config, { logger: pino({ level: "silent" }), hosts, store: createMemoryProjectionStore() });
    await bot.idle();
    await bot.flushDashboards();

    expect(bot.tracker(repo, issue.number)).toBeDefined();
    const body = server?.issues.get(issue.number)?.body ?? "";
    expect(body).toContain("Notes from a person.");
    expect(body).toContain("clone_complete");
    expect(body).toContain("worker");

    // The receiver checks the signature the toy host names (X-Toy-Signature, bare hex), not GitHub's header.
    const payload = JSON.stringify({
      action: "opened",
      issue: { number: 99, title: "other", body: "", state: "open", labels: [] },
      repository: { name: "work", full_name: "agent/work", owner: { login: "agent" } },
      sender: { login: "agent" },
    });
    const hmac = createHmac("sha256", config.webhookSecret).update(payload).digest("hex");
    const post = (headers: Record<string, string>) =>
      fetch(`${bot?.url}${config.webhookPath}`, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "issues", ...headers }, body: payload });
    expect((await post({ "x-hub-signature-256": `sha256=${hmac}` })).status).toBe(400);
    expect((await post({ "x-toy-signature": hmac })).status).toBe(200);
  });
});
