import type { HostWebhook, IssueHost, RepoRef } from "../../../ports/issue-host.ts";
import { redactUrl } from "../../../util/redact-url.ts";
import { type DoctorCheck, message, reasonOf } from "./doctor-check.ts";

const WEBHOOK_EVENTS = ["issues", "issue_comment"];

export async function checkWebhook(api: IssueHost, repo: RepoRef, login: string, botUrl: string | undefined, path: string, add: (c: DoctorCheck) => void): Promise<void> {
  // Forgejo's API (v13) has no endpoint for a hook's deliveries; the bot's own delivery counters are
  // reported by the bot check instead.
  const noDeliveries = "Forgejo's API does not expose deliveries: see the hook's Recent Deliveries in the repository settings";
  let hooks: HostWebhook[];
  try {
    hooks = await api.listWebhooks(repo);
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
  const receives = (h: HostWebhook) => WEBHOOK_EVENTS.every((ev) => h.events.includes(ev));
  if (!botUrl) {
    const candidates = hooks.filter((h) => h.active && receives(h));
    if (candidates.length)
      add({
        check: "webhook",
        status: "ok",
        message: `${candidates.length} active webhook(s) receive issues and issue_comment (${candidates.map((h) => redactUrl(h.url || "?")).join(", ")}); pass --bot-url to check the bot's. ${noDeliveries}`,
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
  const mine = hooks.filter((h) => h.url === target);
  const hook = mine[0];
  if (!hook) {
    add({ check: "webhook", status: "fail", message: `no webhook delivers to ${redactUrl(target)}`, fix: `run \`checkpost install-webhook --bot-url ${redactUrl(botUrl)}\`` });
    return;
  }
  const problems = [
    !hook.active ? "is inactive" : "",
    !receives(hook) ? `sends ${hook.events.join(", ") || "no events"} (needs ${WEBHOOK_EVENTS.join(", ")})` : "",
    hook.contentType !== undefined && hook.contentType !== "json" ? `sends ${hook.contentType} (needs json)` : "",
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
