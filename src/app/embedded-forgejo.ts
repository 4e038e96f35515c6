import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { startForge } from "../embedded-forge/index.ts";
import type { ForgeServer } from "../embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../forgejo-client/index.ts";
import { locateIssue } from "../session-client/index.ts";

/** The agents' own user in the demo: write access to the repository, not a site admin. */
export const DEMO_AGENT_LOGIN = "agent";

export interface EmbeddedWorld {
  forge: ForgeServer;
  /** The bot's token (its user is the demo's site admin and the repository's owner); kept in `forge/bot-token`, never printed. */
  token: string;
  login: string;
  /** The agents' identity: their own non-admin user with write access, token in `forge/agent-token`. */
  agent: { login: string; token: string };
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
  // Owner-only (docs/security.md): it holds the forge's database and the demo's tokens. chmod too, since
  // mkdir keeps the mode of a directory an earlier version made 0755.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const forge = await startForge({ port: o.port, host: "127.0.0.1", dataDir: dir, logger: o.logger.child({ component: "forge" }) });
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
  // The bot's token is kept in the data directory (owner-only file) and reused while Forgejo still
  // accepts it, so a restart does not mint another site-admin token each time. Named for whose it is
  // (`bot-token`, beside the agents' `agent-token`); a data directory from before keeps working: its
  // `demo-token` is read once and rewritten under the new name.
  const tokenFile = join(dir, "bot-token");
  let token = readSecretFile(tokenFile) ?? readSecretFile(join(dir, "demo-token"));
  let api = token ? new ForgejoApi(new ForgejoClient({ url: forge.url, token, retries: 0 })) : undefined;
  if (
    !token ||
    !api ||
    !(await api.currentUser().then(
      (u) => u.login === login,
      () => false,
    ))
  ) {
    token = forge.admin.createToken(login, `npm-start-${Date.now()}`);
    api = new ForgejoApi(new ForgejoClient({ url: forge.url, token }));
  }
  writeSecretFile(tokenFile, token);
  rmSync(join(dir, "demo-token"), { force: true });
  // Agents save as their own user (issue 19.8): not the bot's, whose commands the bot ignores and whose
  // token is a site admin's. Write access: agents update the issue's label and resume index.
  if (!forge.admin.userExists(DEMO_AGENT_LOGIN)) forge.admin.createUser(DEMO_AGENT_LOGIN, { fullName: "demo agents" });
  forge.admin.addCollaborator(repo.owner, repo.repo, DEMO_AGENT_LOGIN, "write");
  const agentToken = await reusableToken(forge, join(dir, "agent-token"), DEMO_AGENT_LOGIN);
  const issue = (await locateIssue(api, repo, { title: o.title, label: o.label, create: true })).number;
  return {
    forge,
    token,
    login,
    agent: { login: DEMO_AGENT_LOGIN, token: agentToken },
    person: { login: person, password },
    repo,
    issue,
    async connectWebhook(botUrl, secret, path) {
      const target = `${botUrl}${path}`;
      await api.ensureWebhook(repo, { url: target, secret, events: ["issues", "issue_comment"] });
    },
  };
}

/** The token kept in `file` while Forgejo still accepts it for `login`, else a new one (written owner-only). */
async function reusableToken(forge: ForgeServer, file: string, login: string): Promise<string> {
  const kept = readSecretFile(file);
  const valid =
    kept !== undefined &&
    (await new ForgejoApi(new ForgejoClient({ url: forge.url, token: kept, retries: 0 })).currentUser().then(
      (u) => u.login === login,
      () => false,
    ));
  if (kept !== undefined && valid) return kept;
  const token = forge.admin.createToken(login, `npm-start-${Date.now()}`);
  writeSecretFile(file, token);
  return token;
}

export const randomSecret = () => randomBytes(24).toString("hex");

/** A secret kept in a file only its owner can read; undefined when there is none yet. */
export function readSecretFile(file: string): string | undefined {
  try {
    const v = readFileSync(file, "utf8").trim();
    return v || undefined;
  } catch {
    return undefined; // first start
  }
}

export function writeSecretFile(file: string, value: string): void {
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an older file keeps its mode on overwrite
}
