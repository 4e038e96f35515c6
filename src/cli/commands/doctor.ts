import { ExitError } from "../../errors.ts";
import { redactUrl } from "../../util/redact-url.ts";
import type { RepoRef } from "../../ports/issue-host.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { checkBot } from "./doctor/check-bot.ts";
import { checkIdentity } from "./doctor/check-identity.ts";
import { checkIgnoredAuthors } from "./doctor/check-ignored-authors.ts";
import { checkSessionIssue } from "./doctor/check-session-issue.ts";
import { checkTrust } from "./doctor/check-trust.ts";
import { checkWebhook } from "./doctor/check-webhook.ts";
import { type CheckStatus, type DoctorCheck, message } from "./doctor/doctor-check.ts";

export type { CheckStatus, DoctorCheck };

export interface DoctorOptions extends RepoFlags {
  botUrl?: string;
  json?: boolean;
  /** Injected fetch for the bot checks (tests). */
  fetch?: typeof fetch;
}

const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

/**
 * `checkpost doctor`: checks a deployment from the outside and says what to fix. Read-only: it makes only
 * GET requests. Later checks that need an earlier one (a reachable Forgejo, a valid token) are skipped.
 */
export async function runDoctor(io: CliIo, o: DoctorOptions, root: CliRoot): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add = (c: DoctorCheck) => checks.push(c);
  const settings = await root.settings(io, o.repo);
  const env = settings.env;
  const url = o.url ?? env.FORGEJO_URL;
  let repo: RepoRef | undefined;
  if (settings.repo instanceof Error) add({ check: "config", status: "fail", message: message(settings.repo), fix: "set FORGEJO_REPO=owner/repo or pass --repo" });
  else repo = settings.repo;
  if (!url) add({ check: "config", status: "fail", message: "no Forgejo instance", fix: "set FORGEJO_URL (e.g. http://127.0.0.1:3000) or pass --url" });
  if (!env.FORGEJO_TOKEN) add({ check: "config", status: "fail", message: "no token", fix: "set FORGEJO_TOKEN to an access token with write:issue, read:repository, read:user" });
  if (!url || !env.FORGEJO_TOKEN || !repo) return checks;
  const shown = redactUrl(url);
  add({ check: "config", status: "ok", message: `Forgejo ${shown}, repository ${repo.owner}/${repo.repo}` });

  const api = await root.host({ host: env.CHECKPOST_HOST, url, token: env.FORGEJO_TOKEN, timeoutMs: env.CHECKPOST_REQUEST_TIMEOUT_MS });
  const anonymous = await root.host({ host: env.CHECKPOST_HOST, url, timeoutMs: env.CHECKPOST_REQUEST_TIMEOUT_MS });

  // 1. Reachable, and a Forgejo: Forgejo reports "<forgejo>+gitea-<compat>" (Makefile), Gitea a bare version.
  try {
    const version = await anonymous.version();
    if (/\+gitea-/.test(version)) add({ check: "forgejo", status: "ok", message: `Forgejo ${version} at ${shown}` });
    else
      add({
        check: "forgejo",
        status: "warn",
        message: `${shown} answers /api/v1/version with "${version}", which is not a Forgejo version`,
        fix: "checkpost is tested against Forgejo; Gitea may differ (webhook headers, PATCH status)",
      });
  } catch (e) {
    add({
      check: "forgejo",
      status: "fail",
      message: `${shown} is not reachable as a Forgejo API: ${message(e)}`,
      fix: "check FORGEJO_URL (the instance root, without /api/v1) and that the server is up",
    });
    return checks;
  }

  // 2. The token and its user.
  let login: string;
  let siteAdmin = false;
  try {
    const me = await api.currentUser();
    login = me.login;
    siteAdmin = me.isAdmin === true;
    add({ check: "token", status: "ok", message: `the token belongs to ${login}` });
  } catch (e) {
    add({ check: "token", status: "fail", message: `the token was refused: ${message(e)}`, fix: "create a new access token (scopes write:issue, read:repository, read:user) and set FORGEJO_TOKEN" });
    return checks;
  }

  // 3. Can it write issues? The host reports the user's access to the repository; token scopes are not readable.
  try {
    const r = await api.getRepo(repo);
    if (r.access === "write" || r.access === "admin") add({ check: "repository", status: "ok", message: `${login} has ${r.access} access to ${r.fullName}${r.private ? " (private)" : ""}` });
    else
      add({
        check: "repository",
        status: "fail",
        message: `${login} has read-only access to ${r.fullName}: it can comment but not write the dashboard, the resume index or labels`,
        fix: `give ${login} write access to ${r.fullName} (Settings → Collaborators)`,
      });
  } catch (e) {
    add({ check: "repository", status: "fail", message: `cannot read ${repo.owner}/${repo.repo}: ${message(e)}`, fix: "check FORGEJO_REPO and that the token's user can see the repository" });
    return checks;
  }

  // 3b. Identities (docs/security.md, "Identities"): whose token this is, against the bot's login.
  await checkIdentity(api, repo, login, siteAdmin, env, io.env["CHECKPOST_BOT_LOGIN"]?.trim() || undefined, add);

  // 4. The session issue: found, open, labelled.
  const issue = await checkSessionIssue(api, repo, env, o.issue ?? env.CHECKPOST_ISSUE, add);

  // 4b. Authors whose checkpoints every reader with these settings ignores (the dashboard's line, word for word).
  if (issue) await checkIgnoredAuthors(api, repo, issue.number, login, env, add);

  // 5. The webhook for the bot.
  await checkWebhook(api, repo, login, o.botUrl, io.env["WEBHOOK_PATH"] ?? DEFAULT_WEBHOOK_PATH, add);

  // 6. Trusted authors versus writers; 7. the signing key.
  await checkTrust(api, repo, login, env, add);
  if (env.CHECKPOST_SIGNING_KEY) add({ check: "signing-key", status: "ok", message: "CHECKPOST_SIGNING_KEY is set: checkpoints and the resume index are signed, unsigned ones are not believed" });
  else
    add({
      check: "signing-key",
      status: "warn",
      message: "CHECKPOST_SIGNING_KEY is not set: a repository writer who is not a trusted author can roll an agent back by editing the resume index in the issue body",
      fix: "set the same CHECKPOST_SIGNING_KEY (16+ characters, e.g. `openssl rand -hex 32`) for the bot and every agent (docs/security.md)",
    });

  // 8. The bot: reachable, ready, accepts our API token, watches this issue.
  if (o.botUrl) await checkBot(o.botUrl, env, repo, issue, o.fetch ?? fetch, add, login);
  else add({ check: "bot", status: "skip", message: "pass --bot-url URL to check the bot" });
  return checks;
}

const MARK: Record<CheckStatus, string> = { ok: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" };

/** `checkpost doctor [--bot-url URL] [--json]`: exit 0 only when every check is ok (or skipped). */
export async function doctor(io: CliIo, o: DoctorOptions, root: CliRoot): Promise<void> {
  const checks = await runDoctor(io, o, root);
  const ok = checks.every((c) => c.status === "ok" || c.status === "skip");
  if (o.json) printJson(io, { ok, checks });
  else {
    const width = Math.max(...checks.map((c) => c.check.length));
    const lines = checks.flatMap((c) => [`${MARK[c.status]}  ${c.check.padEnd(width)}  ${c.message}`, ...(c.fix && c.status !== "ok" ? [`${" ".repeat(width + 8)}fix: ${c.fix}`] : [])]);
    io.out(`${lines.join("\n")}\n${ok ? "nothing to fix" : `${checks.filter((c) => c.status === "fail" || c.status === "warn").length} thing(s) to fix`}`);
  }
  if (!ok) throw new ExitError(1);
}
