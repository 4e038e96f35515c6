/**
 * The web view's forms, as Forgejo's UI posts them: sign in and out (session cookie, CSRF token),
 * post a comment, and tick a task-list checkbox in the issue body. Each action runs the same route
 * handler as the API (permissions, webhooks), as the signed-in user.
 */
import type { IncomingHttpHeaders } from "node:http";
import { ApiFailure } from "./api-error.ts";
import type { ForgeContext, RequestContext } from "./context.ts";
import { verifyPassword } from "./password.ts";
import type { SignInLimiter } from "./sign-in-limit.ts";
import { createComment } from "./routes/comments.ts";
import { editIssue } from "./routes/issues.ts";
import { setTaskAt } from "./task-positions.ts";
import type { ApiResult } from "./types.ts";
import { CSRF_COOKIE, SESSION_COOKIE, cookie, parseCookies, sameToken } from "./web-session.ts";
import type { WebSessions } from "./web-session.ts";
import { renderLoginPage } from "./web-view.ts";

/** Only a path on this server: "/x", never "//host" or "/\\host". */
function localPath(p: string | null, fallback: string): string {
  return p && /^\/(?![/\\])[^\s]*$/.test(p) ? p : fallback;
}

const redirect = (to: string, headers: Record<string, string> = {}): ApiResult => ({ status: 303, raw: "", headers: { Location: to, ...headers } });
const plain = (status: number, text: string): ApiResult => ({ status, raw: text, contentType: "text/plain; charset=utf-8" });

/** Who posts a web form: the client's address (the socket's, never a header it could forge) and the sign-in limit. */
export interface WebClient {
  ip: string;
  signIns: SignInLimiter;
}

export async function handleWebPost(forge: ForgeContext, sessions: WebSessions, url: URL, headers: IncomingHttpHeaders, raw: Buffer, client: WebClient): Promise<ApiResult> {
  const form = new URLSearchParams(raw.toString("utf8"));
  const path = url.pathname;
  if (path === "/user/login") {
    // Anonymous form: double-submit CSRF (the cookie set with the form must come back in the form).
    if (!sameToken(form.get("_csrf"), parseCookies(headers).get(CSRF_COOKIE))) return plain(400, "Invalid CSRF token: reload the sign-in page and try again.");
    const name = form.get("user_name") ?? "";
    // Checked before any hashing, so a storm costs a map lookup per request, not an scrypt.
    const slot = client.signIns.take(client.ip, name);
    if (!slot.ok) return { ...plain(429, `Too many sign-in attempts: try again in ${slot.retryAfterSec} s.`), headers: { "Retry-After": String(slot.retryAfterSec) } };
    const user = forge.store.userByLogin(name);
    // Always one scrypt, against a dummy hash for an unknown user: the same cost either way.
    const right = await verifyPassword(form.get("password") ?? "", user ? forge.store.passwordHash(user.id) : undefined);
    if (!user || !right) {
      const again = renderLoginPage(localPath(form.get("redirect_to"), "/"), form.get("_csrf") ?? "", "Username or password is incorrect.");
      return { status: 200, raw: again.html, contentType: "text/html; charset=utf-8", headers: again.headers };
    }
    slot.release(); // a right password does not count against the limit
    const s = sessions.create(user.id);
    return redirect(localPath(form.get("redirect_to"), "/"), { "Set-Cookie": cookie(SESSION_COOKIE, s.id, 24 * 3600) });
  }
  const session = sessions.fromRequest(headers);
  if (!session) return redirect(`/user/login?redirect_to=${encodeURIComponent(path.replace(/\/(comments|tasks)$/, ""))}`);
  if (!sameToken(form.get("_csrf"), session.csrf)) return plain(400, "Invalid CSRF token: reload the page and try again.");
  if (path === "/user/logout") {
    sessions.destroy(session.id);
    return redirect("/", { "Set-Cookie": cookie(SESSION_COOKIE, "", 0) });
  }
  const m = /^\/([^/]+)\/([^/]+)\/issues\/(\d+)\/(comments|tasks)$/.exec(path);
  const doer = forge.store.userById(session.userId);
  if (!m || !doer) return plain(404, "Not found");
  const params = { owner: decodeURIComponent(m[1] as string), repo: decodeURIComponent(m[2] as string), index: m[3] as string };
  const back = `/${m[1]}/${m[2]}/issues/${m[3]}`;
  const run = (handler: (ctx: RequestContext) => ApiResult, body: unknown): ApiResult => {
    try {
      return handler({ forge, method: m[4] === "comments" ? "POST" : "PATCH", url, params, doer, body });
    } catch (e) {
      if (e instanceof ApiFailure) return e.result;
      throw e;
    }
  };
  if (m[4] === "comments") {
    const r = run(createComment, { body: form.get("content") ?? "" });
    if (r.status !== 201) return { ...plain(r.status, `The comment was not posted (${r.status}).`), ...(r.after ? { after: r.after } : {}) };
    const id = (r.json as { id?: number } | undefined)?.id;
    return { ...redirect(`${back}${id ? `#issuecomment-${id}` : ""}`), ...(r.after ? { after: r.after } : {}) };
  }
  const repo = forge.store.repoByName(params.owner, params.repo);
  const issue = repo ? forge.store.issueByIndex(repo.id, Number(params.index)) : undefined;
  if (!issue) return plain(404, "Not found");
  // As Forgejo's UpdateIssueContent (routers/web/repo/issue.go:2344): the page's content_version must
  // still be the issue's, else the edit is refused (ErrIssueAlreadyChanged, models/issues/issue_update.go:289)
  // with a 400 and "repo.issues.edit.already_changed". A missing version reads as 0 (ctx.FormInt).
  if (Number(form.get("content_version") ?? 0) !== issue.content_version)
    return plain(
      400,
      "Unable to save changes to the issue. It appears the content has already been changed by another user. Please refresh the page and try editing again to avoid overwriting their changes.",
    );
  // The box is named by its offset in the source (data-source-position), as Forgejo's page does.
  const position = Number(form.get("position"));
  const next = Number.isSafeInteger(position) && position >= 0 ? setTaskAt(issue.body, position, form.get("checked") === "true") : null;
  if (next === null) return plain(404, "No such task item.");
  const r = run(editIssue, { body: next });
  if (r.status >= 300) return plain(r.status, `The change was not saved (${r.status}): you may not edit this issue.`);
  return { ...redirect(back), ...(r.after ? { after: r.after } : {}) };
}
