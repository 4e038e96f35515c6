import type { ClientEnv } from "../../../config/env.ts";
import type { IssueHost, RepoRef } from "../../../ports/issue-host.ts";
import { type DoctorCheck, message, reasonOf } from "./doctor-check.ts";

/**
 * The identity behind the token (issue 19.8). A deployment has three kinds (docs/security.md): the bot (its
 * own user, write or admin on the repository), agents (their own users, write, trusted by the bot and listed
 * in its CHECKPOST_TRUSTED_AUTHORS) and people (write to use the dashboard's controls, not trusted authors).
 * Warned: a site administrator's token (no checkpost identity needs one), an agent set-up using the bot's
 * own login (the bot ignores commands made with it, and the agent would hold the bot's rights), a bot login
 * this reader does not trust (its carried checkpoints and archive records would not be believed), and a bot
 * login that does not exist or may not write.
 */
export async function checkIdentity(api: IssueHost, repo: RepoRef, login: string, siteAdmin: boolean, env: ClientEnv, botLogin: string | undefined, add: (c: DoctorCheck) => void): Promise<void> {
  const problems: { message: string; fix: string }[] = [];
  if (siteAdmin)
    problems.push({
      message: `${login} is a site administrator: a leaked token would own the whole instance`,
      fix: "give agents a token of their own non-admin user with write access to the repository; keep an admin token, if the bot must have one, in an owner-only file",
    });
  const trusted = new Set([login, ...env.CHECKPOST_TRUSTED_AUTHORS].map((s) => s.toLowerCase()));
  let botRole = "";
  if (botLogin) {
    if (botLogin.toLowerCase() === login.toLowerCase())
      problems.push({
        message: `the token is the bot's own (${botLogin}): the bot ignores slash commands and ticks made with its login, and an agent holding it holds the bot's rights`,
        fix: "give each agent its own user and token (docs/security.md, Identities); run doctor with the bot's token only to check the bot",
      });
    else if (!trusted.has(botLogin.toLowerCase()))
      problems.push({
        message: `the bot's login ${botLogin} is not a trusted author here: checkpoints it carried over at rollover and its health archives would not be believed`,
        fix: `add ${botLogin} to CHECKPOST_TRUSTED_AUTHORS`,
      });
    try {
      const mode = await api.repoAccess(repo, botLogin);
      botRole = `; the bot ${botLogin} has ${mode} access`;
      if (mode !== "write" && mode !== "admin")
        problems.push({
          message: `the bot ${botLogin} has ${mode} access to ${repo.owner}/${repo.repo}: it cannot write the dashboard`,
          fix: `give ${botLogin} write access to ${repo.owner}/${repo.repo}`,
        });
    } catch (e) {
      const reason = reasonOf(e);
      if (reason === "not-found") problems.push({ message: `the bot's login ${botLogin} does not exist on this Forgejo`, fix: "correct CHECKPOST_BOT_LOGIN" });
      else if (reason === "forbidden") botRole = `; the bot's access was not read (repository admin only)`;
      else problems.push({ message: `cannot read the bot ${botLogin}'s permission: ${message(e)}`, fix: "check CHECKPOST_BOT_LOGIN and the token's access" });
    }
  }
  const summary = `${login}: ${siteAdmin ? "site administrator" : "not a site administrator"}${botLogin ? `; bot ${botLogin}` : "; CHECKPOST_BOT_LOGIN not set, so the bot's identity was not checked"}${botRole}`;
  if (!problems.length) add({ check: "identity", status: "ok", message: summary });
  for (const p of problems) add({ check: "identity", status: "warn", message: p.message, fix: p.fix });
}
