// Issue 31, item 2: the bot itself (tracker, delivery receiver, dashboard writer), unchanged, behind the
// IssueHost port on a host with GitHub's behaviour: its deliveries signed with X-Hub-Signature-256 and
// carrying only GitHub's headers, its comment lists paged, labels by name.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryProjectionStore } from "../../src/bot-state/index.ts";
import { type Bot, createBot } from "../../src/bot/create-bot.ts";
import { defaultBotConfig } from "../../src/config/bot-env.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../src/session-client/index.ts";
import { TIMERS_OFF } from "../helpers/bot-world.ts";
import { GitHubHost, readGitHubDelivery, verifyGitHubDelivery } from "../helpers/github-host/github-host.ts";
import { GitHubRest } from "../helpers/github-host/github-rest.ts";

const repo = { owner: "agent", repo: "work" };
const SECRET = "github-webhook-secret";

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  bot = undefined;
});

describe("the bot on a host with GitHub's behaviour", () => {
  it("takes a signed delivery, folds the checkpoint, and writes the dashboard into the issue", async () => {
    const rest = new GitHubRest({ repo, now: () => Date.now() });
    const agent = rest.addUser("agent");
    const botUser = rest.addUser("checkpost-bot");
    rest.permissions.set("checkpost-bot", "write");
    const host = (token: string) => new GitHubHost({ apiUrl: rest.apiUrl, token, fetch: rest.fetch, now: () => Date.now() });
    const label = await host(agent.token).createLabel(repo, { name: DEFAULT_SESSION_LABEL, color: "#0e8a16" });
    const issue = await host(agent.token).createIssue(repo, { title: DEFAULT_SESSION_TITLE, body: "Notes from a person.\n", labels: [label.name] });

    const config = { ...defaultBotConfig({ url: "https://github.test", token: botUser.token }, [repo]), trustedAuthors: ["agent"], webhookSecret: SECRET, port: 0, ...TIMERS_OFF, retries: 0 };
    bot = await createBot(config, {
      logger: pino({ level: "silent" }),
      host: { api: host(botUser.token), apiUrl: rest.apiUrl, readDelivery: readGitHubDelivery, verifyDelivery: verifyGitHubDelivery },
      store: createMemoryProjectionStore(),
    });

    const saved = await new SessionStore({ api: host(agent.token), repo, issue: issue.number }).save({ agent: "worker", session: "s1", phase: "clone_complete", data: { branch: "b" } });
    const comment = rest.comments.get(saved.comment_id);
    if (!comment) throw new Error("the save did not land");
    const payload = {
      action: "created",
      issue: { number: issue.number, title: issue.title, body: issue.body, state: "open", labels: [{ name: DEFAULT_SESSION_LABEL }] },
      comment: { id: comment.id, body: comment.body, user: { login: "agent" }, created_at: comment.created_at, updated_at: comment.updated_at, html_url: saved.html_url },
      repository: { name: "work", full_name: "agent/work", owner: { login: "agent" } },
      sender: { login: "agent" },
    };
    const d = GitHubRest.delivery("issue_comment", payload, SECRET);
    const res = await fetch(`${bot.url}${config.webhookPath}`, { method: "POST", headers: d.headers, body: d.body });
    expect(res.status).toBe(200);
    await bot.idle();
    await bot.flushDashboards();

    const tracker = bot.tracker(repo, issue.number);
    expect(tracker).toBeDefined();
    const body = rest.issues.get(issue.number)?.body ?? "";
    expect(body).toContain("Notes from a person.");
    expect(body).toContain("clone_complete");
    expect(body).toContain("worker");

    // A delivery signed with another secret is refused.
    const forged = GitHubRest.delivery("issue_comment", payload, "not-the-secret");
    expect((await fetch(`${bot.url}${config.webhookPath}`, { method: "POST", headers: forged.headers, body: forged.body })).status).toBe(400);
  });
});
