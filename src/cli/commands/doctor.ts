import * as z from "zod";
import type { ClientEnv } from "../../config/env.ts";
import { ExitError, HostError, type HostErrorReason } from "../../errors.ts";
import type { HostHook, HostIssue, IssueHost, RepoAccess, RepoRef } from "../../ports/issue-host.ts";
import { isSessionIssue, listSessionIssues, readAllComments, toCommentRecord } from "../../session-client/index.ts";
import { createProjection } from "../../projection/index.ts";
import { ignoredAuthors, ignoredAuthorsText } from "../../dashboard/index.ts";
import { redactUrl } from "../../util/redact-url.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

export interface DoctorCheck {
  check: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

export interface DoctorOptions extends RepoFlags {
  botUrl?: string;
  json?: boolean;
  /** Injected fetch for the bot checks (tests). */
  fetch?: typeof fetch;
}

/** What /healthz answers (the bot's login since issue 19). */
const HealthSchema = z.object({ status: z.string(), login: z.string().optional() });

const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";
const WEBHOOK_EVENTS = ["issues", "issue_comment"];

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const reasonOf = (e: unknown): HostErrorReason | undefined => (e instanceof HostError ? e.reason : undefined);

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

/**
 * The identity behind the token (issue 19.8). A deployment has three kinds (docs/security.md): the bot (its
 * own user, write or admin on the repository), agents (their own users, write, trusted by the bot and listed
 * in its CHECKPOST_TRUSTED_AUTHORS) and people (write to use the dashboard's controls, not trusted authors).
 * Warned: a site administrator's token (no checkpost identity needs one), an agent set-up using the bot's
 * own login (the bot ignores commands made with it, and the agent would hold the bot's rights), a bot login
 * this reader does not trust (its carried checkpoints and archive records would not be believed), and a bot
 * login that does not exist or may not write.
 */
async function checkIdentity(api: IssueHost, repo: RepoRef, login: string, siteAdmin: boolean, env: ClientEnv, botLogin: string | undefined, add: (c: DoctorCheck) => void): Promise<void> {
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

/**
 * Reads the session issue as `status` does, with this token's login and CHECKPOST_TRUSTED_AUTHORS: an author
 * whose checkpoints were ignored fails the check with the sentence the dashboard shows. Run with the bot's
 * settings, it is the bot's decision (docs/security.md, "Trusted authors").
 */
async function checkIgnoredAuthors(api: IssueHost, repo: RepoRef, issue: number, login: string, env: ClientEnv, add: (c: DoctorCheck) => void): Promise<void> {
  try {
    const p = createProjection({
      trustedAuthors: new Set([login, ...env.CHECKPOST_TRUSTED_AUTHORS].map((s) => s.toLowerCase())),
      ...(env.CHECKPOST_SIGNING_KEY ? { signingKey: env.CHECKPOST_SIGNING_KEY } : {}),
      legacyWriters: env.CHECKPOST_LEGACY_WRITERS,
    });
    p.applyAll((await readAllComments(api, repo, issue)).map((c) => ({ type: "upsert" as const, comment: toCommentRecord(c) })));
    const text = ignoredAuthorsText(ignoredAuthors(p.snapshot()), env.CHECKPOST_TRUSTED_AUTHORS);
    if (text === null)
      add({
        check: "ignored-authors",
        status: "ok",
        message: `no checkpoint on #${issue} was ignored for its author (trusted: ${login}${env.CHECKPOST_TRUSTED_AUTHORS.length ? `, ${env.CHECKPOST_TRUSTED_AUTHORS.join(", ")}` : ""})`,
      });
    else
      add({ check: "ignored-authors", status: "fail", message: text, fix: "add the agents' logins to CHECKPOST_TRUSTED_AUTHORS (the same list for the bot and every agent), or delete the comments" });
  } catch (e) {
    add({ check: "ignored-authors", status: "fail", message: `cannot read #${issue}'s comments: ${message(e)}` });
  }
}

async function checkSessionIssue(api: IssueHost, repo: RepoRef, env: ClientEnv, explicit: number | undefined, add: (c: DoctorCheck) => void): Promise<HostIssue | undefined> {
  const opts = { title: env.CHECKPOST_SESSION_TITLE, label: env.CHECKPOST_SESSION_LABEL };
  try {
    if (explicit !== undefined) {
      const issue = await api.getIssue(repo, explicit);
      const problems = [
        issue.state !== "open" ? "is closed" : "",
        !issue.title.includes(opts.title) ? `has no "${opts.title}" in its title` : "",
        !issue.labels.some((l) => l.name === opts.label) ? `lacks the label "${opts.label}"` : "",
      ].filter(Boolean);
      if (problems.length === 0) add({ check: "session-issue", status: "ok", message: `#${issue.number} "${issue.title}" is open and labelled "${opts.label}"` });
      else
        add({
          check: "session-issue",
          status: "warn",
          message: `#${issue.number} ${problems.join(", ")}: the bot finds session issues by open state, title and label`,
          fix: `reopen it, add the label "${opts.label}", or set CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL`,
        });
      return issue;
    }
    const found = await listSessionIssues(api, repo, opts);
    const [newest] = found;
    if (!newest) {
      add({
        check: "session-issue",
        status: "fail",
        message: `no open issue titled "${opts.title}" with label "${opts.label}" in ${repo.owner}/${repo.repo}`,
        fix: "run `checkpost init`, or set CHECKPOST_ISSUE / CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL",
      });
      return undefined;
    }
    if (found.length > 1)
      add({
        check: "session-issue",
        status: "warn",
        message: `${found.length} open session issues match (${found.map((i) => `#${i.number}`).join(", ")}); the newest, #${newest.number}, is used`,
        fix: "close the others",
      });
    else if (isSessionIssue(newest, opts)) add({ check: "session-issue", status: "ok", message: `#${newest.number} "${newest.title}" is open and labelled "${opts.label}"` });
    return newest;
  } catch (e) {
    add({ check: "session-issue", status: "fail", message: `cannot read the session issue: ${message(e)}`, fix: "check CHECKPOST_ISSUE and the token's access" });
    return undefined;
  }
}

async function checkWebhook(api: IssueHost, repo: RepoRef, login: string, botUrl: string | undefined, path: string, add: (c: DoctorCheck) => void): Promise<void> {
  // Forgejo's API (v13) has no endpoint for a hook's deliveries; the bot's own delivery counters are
  // reported by the bot check instead.
  const noDeliveries = "Forgejo's API does not expose deliveries: see the hook's Recent Deliveries in the repository settings";
  let hooks: HostHook[];
  try {
    hooks = await api.listHooks(repo);
  } catch (e) {
    const reason = reasonOf(e);
    // An agent's or a person's token is not a repository admin's, and should not be: what only an admin
    // may read is skipped (said so), not a warning every correct agent set-up would show.
    if (reason === "forbidden" || reason === "not-found")
      add({
        check: "webhook",
        status: "skip",
        message: `${login} may not list the repository's webhooks (repository admin only), so the webhook was not checked: run doctor with the bot's or an admin's token to check it, or see Settings → Webhooks`,
      });
    else add({ check: "webhook", status: "fail", message: `cannot list webhooks: ${message(e)}` });
    return;
  }
  const receives = (h: HostHook) => WEBHOOK_EVENTS.every((ev) => h.events.includes(ev));
  if (!botUrl) {
    const candidates = hooks.filter((h) => h.active && receives(h));
    if (candidates.length)
      add({
        check: "webhook",
        status: "ok",
        message: `${candidates.length} active webhook(s) receive issues and issue_comment (${candidates.map((h) => redactUrl(h.config?.["url"] ?? "?")).join(", ")}); pass --bot-url to check the bot's. ${noDeliveries}`,
      });
    else
      add({
        check: "webhook",
        status: "warn",
        message: "no active webhook receives issues and issue_comment: the bot only sees changes when it polls",
        fix: "run `checkpost install-webhook --bot-url URL`",
      });
    return;
  }
  const target = `${botUrl.replace(/\/+$/, "")}${path}`;
  const mine = hooks.filter((h) => h.config?.["url"] === target);
  const hook = mine[0];
  if (!hook) {
    add({ check: "webhook", status: "fail", message: `no webhook delivers to ${redactUrl(target)}`, fix: `run \`checkpost install-webhook --bot-url ${redactUrl(botUrl)}\`` });
    return;
  }
  const problems = [
    !hook.active ? "is inactive" : "",
    !receives(hook) ? `sends ${hook.events.join(", ") || "no events"} (needs ${WEBHOOK_EVENTS.join(", ")})` : "",
    hook.config?.["content_type"] !== undefined && hook.config["content_type"] !== "json" ? `sends ${hook.config["content_type"]} (needs json)` : "",
    mine.length > 1 ? `is registered ${mine.length} times (each event is delivered ${mine.length} times)` : "",
  ].filter(Boolean);
  if (problems.length)
    add({
      check: "webhook",
      status: "fail",
      message: `the webhook to ${redactUrl(target)} ${problems.join("; ")}`,
      fix: `run \`checkpost install-webhook --bot-url ${redactUrl(botUrl)}\` (it replaces the hook)`,
    });
  else add({ check: "webhook", status: "ok", message: `hook ${hook.id} delivers issues and issue_comment to ${redactUrl(target)} as json. ${noDeliveries}` });
}

async function checkTrust(api: IssueHost, repo: RepoRef, login: string, env: ClientEnv, add: (c: DoctorCheck) => void): Promise<void> {
  const trusted = [...new Set([login, ...env.CHECKPOST_TRUSTED_AUTHORS].map((s) => s.toLowerCase()))];
  const modes = new Map<string, RepoAccess>();
  let forbidden = false;
  const missing: string[] = [];
  for (const who of trusted) {
    try {
      modes.set(who, await api.repoAccess(repo, who));
    } catch (e) {
      const reason = reasonOf(e);
      if (reason === "not-found") missing.push(who);
      else if (reason === "forbidden") forbidden = true;
      else {
        add({ check: "trusted-authors", status: "fail", message: `cannot read ${who}'s permission: ${message(e)}` });
        return;
      }
    }
  }
  if (missing.length)
    add({
      check: "trusted-authors",
      status: "fail",
      message: `trusted author(s) ${missing.join(", ")} do not exist on this Forgejo: anyone who registers that login would be believed`,
      fix: "correct CHECKPOST_TRUSTED_AUTHORS",
    });
  if (forbidden) {
    add({
      check: "trusted-authors",
      status: "skip",
      message: `${login} may not read other users' permissions (repository admin only), so trusted authors were not compared with the writers: run doctor with the bot's or an admin's token to check them`,
    });
    return;
  }
  let collaborators: string[];
  try {
    collaborators = (await api.listCollaborators(repo)).map((u) => u.login.toLowerCase());
  } catch (e) {
    add({ check: "trusted-authors", status: "warn", message: `cannot list collaborators: ${message(e)}` });
    return;
  }
  const writers: string[] = [repo.owner.toLowerCase()];
  try {
    for (const who of collaborators) {
      const mode = modes.get(who) ?? (await api.repoAccess(repo, who));
      if (mode === "write" || mode === "admin") writers.push(who);
    }
  } catch (e) {
    if (reasonOf(e) === "forbidden")
      add({
        check: "trusted-authors",
        status: "skip",
        message: `${login} may not read other users' permissions (repository admin only), so trusted authors were not compared with the writers: run doctor with the bot's or an admin's token to check them`,
      });
    else add({ check: "trusted-authors", status: "fail", message: `cannot read collaborators' permissions: ${message(e)}` });
    return;
  }
  const untrustedWriters = [...new Set(writers)].filter((w) => !trusted.includes(w));
  const summary = `trusted: ${trusted.join(", ")}; writers: ${[...new Set(writers)].join(", ")}`;
  if (untrustedWriters.length === 0) add({ check: "trusted-authors", status: "ok", message: `every writer is a trusted author (${summary})` });
  else if (env.CHECKPOST_SIGNING_KEY)
    add({
      check: "trusted-authors",
      status: "ok",
      message: `${untrustedWriters.join(", ")} can write but are not trusted: they can edit the issue body and delete comments, but not forge a signed checkpoint or index (${summary})`,
    });
  else
    add({
      check: "trusted-authors",
      status: "warn",
      message: `${untrustedWriters.join(", ")} can write but are not trusted authors, and there is no signing key: they can edit the resume index to roll an agent back (${summary})`,
      fix: "set CHECKPOST_SIGNING_KEY, or remove their write access, or trust them (CHECKPOST_TRUSTED_AUTHORS)",
    });
}

async function checkBot(botUrl: string, env: ClientEnv, repo: RepoRef, issue: HostIssue | undefined, doFetch: typeof fetch, add: (c: DoctorCheck) => void, login: string): Promise<void> {
  const base = botUrl.replace(/\/+$/, "");
  const shown = redactUrl(base);
  const get = (path: string, auth: boolean) =>
    doFetch(`${base}${path}`, {
      headers: auth && env.CHECKPOST_API_TOKEN[0] ? { authorization: `Bearer ${env.CHECKPOST_API_TOKEN[0]}` } : {},
      signal: AbortSignal.timeout(env.CHECKPOST_REQUEST_TIMEOUT_MS),
    });
  try {
    const health = await get("/healthz", false);
    if (health.status !== 200) {
      add({ check: "bot", status: "fail", message: `${shown}/healthz answered ${health.status}`, fix: "check --bot-url and the bot's logs" });
      return;
    }
    // The bot never runs slash commands or ticks made with its own login (docs/bot.md#who-may-command).
    const botLogin = HealthSchema.safeParse(await health.json().catch(() => null)).data?.login;
    if (botLogin !== undefined && botLogin.toLowerCase() === login.toLowerCase())
      add({
        check: "bot-login",
        status: "warn",
        message: `this token is the bot's own login (${login}): the bot IGNORES every /checkpost command and dashboard tick made with it`,
        fix: "give people and agents their own Forgejo accounts and tokens; keep the bot's token for the bot",
      });
    else if (botLogin !== undefined)
      add({ check: "bot-login", status: "ok", message: `the bot runs as ${botLogin}, not as ${login}: commands made with this token are honoured (write access needed)` });
  } catch (e) {
    add({ check: "bot", status: "fail", message: `the bot at ${shown} is not reachable: ${message(e)}`, fix: "check --bot-url and that the bot runs (npm start)" });
    return;
  }
  const ready = await get("/readyz", false);
  if (ready.status !== 200)
    add({
      check: "bot",
      status: "warn",
      message: `the bot is up but not ready (readyz ${ready.status}): its first read of the session issues is not done`,
      fix: "wait, then run doctor again; if it stays so, read the bot's logs",
    });
  if (env.CHECKPOST_API_TOKEN.length === 0) {
    add({ check: "bot-api", status: "warn", message: "CHECKPOST_API_TOKEN is not set here, so the bot's API could not be checked", fix: "set CHECKPOST_API_TOKEN to the bot's API token" });
    return;
  }
  const sessions = await get("/api/sessions", true);
  if (sessions.status === 401) {
    add({ check: "bot-api", status: "fail", message: "the bot refused CHECKPOST_API_TOKEN (401)", fix: "use a token from the bot's CHECKPOST_API_TOKEN list" });
    return;
  }
  if (sessions.status !== 200) {
    add({ check: "bot-api", status: "fail", message: `GET /api/sessions answered ${sessions.status}` });
    return;
  }
  const list = (await sessions.json()) as { repo?: string; issue?: number }[];
  const key = `${repo.owner}/${repo.repo}`;
  const watched = Array.isArray(list) && list.some((s) => s.repo?.toLowerCase() === key.toLowerCase() && (issue === undefined || s.issue === issue.number));
  const metrics = await get("/metrics", true);
  const deliveries = metrics.status === 200 ? deliveryCounts(await metrics.text()) : undefined;
  const counted =
    deliveries === undefined
      ? `unknown (/metrics answered ${metrics.status})`
      : [...deliveries]
          .filter(([, n]) => n > 0)
          .map(([r, n]) => `${r} ${n}`)
          .join(", ") || "none yet";
  if (!watched)
    add({
      check: "bot-api",
      status: "fail",
      message: `the bot authenticated us but does not watch ${key}${issue ? `#${issue.number}` : ""}`,
      fix: `add ${key} to the bot's CHECKPOST_REPOSITORIES and restart it`,
    });
  else add({ check: "bot-api", status: "ok", message: `the bot accepts the API token and watches ${key}${issue ? `#${issue.number}` : ""}; webhook deliveries it counted: ${counted}` });
  const rejected = deliveries?.get("rejected") ?? 0;
  if (rejected > 0)
    add({
      check: "bot-deliveries",
      status: "warn",
      message: `the bot rejected ${rejected} webhook deliveries since it started (bad signature or malformed)`,
      fix: "make the bot's WEBHOOK_SECRET equal the hook's secret (`checkpost install-webhook` sets it), and read the bot's log lines for the reason",
    });
}

/** Deliveries by result from the bot's checkpost_webhook_deliveries_total (Prometheus text). */
function deliveryCounts(text: string): Map<string, number> {
  const byResult = new Map<string, number>();
  for (const [, result = "", count] of text.matchAll(/^checkpost_webhook_deliveries_total\{[^}]*result="([^"]+)"[^}]*\} (\d+(?:\.\d+)?)$/gm)) {
    byResult.set(result, (byResult.get(result) ?? 0) + Number(count));
  }
  return byResult;
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
