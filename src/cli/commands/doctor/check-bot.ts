import * as z from "zod";
import type { ClientEnv } from "../../../config/env.ts";
import type { HostIssue, RepoRef } from "../../../ports/issue-host.ts";
import { redactUrl } from "../../../util/redact-url.ts";
import { type DoctorCheck, message } from "./doctor-check.ts";

/** What /healthz answers (the bot's login since issue 19). */
const HealthSchema = z.object({ status: z.string(), login: z.string().optional() });

export async function checkBot(botUrl: string, env: ClientEnv, repo: RepoRef, issue: HostIssue | undefined, doFetch: typeof fetch, add: (c: DoctorCheck) => void, login: string): Promise<void> {
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
