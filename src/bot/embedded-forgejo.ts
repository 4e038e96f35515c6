import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { startForge } from "../forge/index.ts";
import type { ForgeServer } from "../forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../forgejo/index.ts";
import { locateIssue } from "../store/index.ts";

export interface EmbeddedWorld {
  forge: ForgeServer;
  token: string;
  login: string;
  /** A person's web sign-in (user "demo", write access; a new password each start). */
  person: { login: string; password: string };
  repo: { owner: string; repo: string };
  issue: number;
  /** Registers (or re-registers) the webhook to the bot with this secret. */
  connectWebhook(botUrl: string, secret: string, path: string): Promise<void>;
}

/**
 * `npm start` without FORGEJO_URL: an embedded Forgejo with a data directory,
 * a user and a fresh token, a repo and a session issue, ready for the bot.
 */
export async function startEmbeddedForgejo(o: { dataDir: string; port: number; title: string; label: string; logger: Logger }): Promise<EmbeddedWorld> {
  const dir = join(o.dataDir, "forge");
  mkdirSync(dir, { recursive: true });
  const forge = await startForge({ port: o.port, host: "127.0.0.1", dataDir: dir, logger: o.logger.child({ name: "forge" }) });
  const login = "checkpost";
  const repo = { owner: login, repo: "demo" };
  if (!forge.admin.userExists(login)) forge.admin.createUser(login, { isAdmin: true, fullName: "checkpost" });
  if (!forge.admin.repoExists(repo.owner, repo.repo)) forge.admin.createRepo(repo.owner, repo.repo, { description: "checkpost demo: agents checkpoint here" });
  // A person to sign in to the web view as, with write access (so the dashboard's controls obey them):
  // not the bot's own user, whose edits and comments the bot ignores. A fresh password each start.
  const person = "demo";
  if (!forge.admin.userExists(person)) forge.admin.createUser(person, { fullName: "demo person" });
  forge.admin.addCollaborator(repo.owner, repo.repo, person, "write");
  const password = randomBytes(9).toString("base64url");
  forge.admin.setPassword(person, password);
  // A fresh token each start: tokens are only shown once, as on Forgejo.
  const token = forge.admin.createToken(login, `npm-start-${Date.now()}`);
  const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token }));
  const issue = (await locateIssue(api, repo, { title: o.title, label: o.label, create: true })).number;
  return {
    forge,
    token,
    login,
    person: { login: person, password },
    repo,
    issue,
    async connectWebhook(botUrl, secret, path) {
      const target = `${botUrl}${path}`;
      for (const h of await api.listHooks(repo)) if (h.config?.["url"] === target) await api.deleteHook(repo, h.id);
      await api.createHook(repo, { type: "forgejo", active: true, events: ["issues", "issue_comment"], config: { url: target, content_type: "json", secret } });
    },
  };
}

export const randomSecret = () => randomBytes(24).toString("hex");
