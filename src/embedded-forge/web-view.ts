/** Read-only HTML view: "/" (repos and issues) and "/{owner}/{repo}/issues/{n}" (Forgejo's path). */
import type { ForgeContext } from "./context.ts";
import { escapeHtml } from "./escape-html.ts";
import { renderMarkdown } from "./render-markdown.ts";
import { rfc3339 } from "./time.ts";
import type { RepoRow, UserRow } from "./types.ts";
import { CSRF_COOKIE, newToken } from "./web-session.ts";

/**
 * Characters of one comment (or issue body) rendered in the page. Forgejo caps its rendered output
 * (MaxDisplayFileSize * 3) so its UI stays usable; here the source is cut before rendering, which also
 * keeps the Markdown renderer fast on an 8 MB or 30 MB comment. The full text stays in the API.
 */
export const WEB_BODY_LIMIT = 64 * 1024;

/**
 * Scripts only from this server (the mermaid bundle and the page script, never inline, never eval),
 * so even markup that got past the sanitizer could not run; forms post only here; no plugin, no
 * framing. Inline styles are allowed for the page's stylesheet and mermaid's SVG; images from
 * http(s) and, for mermaid, data: URLs.
 */
export const WEB_CSP =
  "default-src 'none'; script-src 'self'; img-src 'self' data: http: https:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Who is looking: a signed-in user and their session's CSRF token, or nobody. */
export interface WebViewer {
  user: UserRow;
  csrf: string;
}

/** The rendered body, cut at WEB_BODY_LIMIT (never inside a surrogate pair) with a note where to read the rest. */
function renderBody(body: string, apiPath: string): string {
  if (body.length <= WEB_BODY_LIMIT) return renderMarkdown(body);
  let cut = WEB_BODY_LIMIT;
  const last = body.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  const note = `<p class="truncated"><em>Truncated: this text is ${body.length.toLocaleString("en-US")} characters; the page shows the first ${cut.toLocaleString("en-US")}. The full text is at <code>GET ${escapeHtml(apiPath)}</code>.</em></p>`;
  return renderMarkdown(body.slice(0, cut)) + note;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:64rem;margin:1.5rem auto;padding:0 1rem;color:#1f2328;line-height:1.5}
body>p:first-of-type{border-bottom:1px solid #d0d7de;padding-bottom:.5rem}
body>p:first-of-type form{display:inline}.comment,.issue-body{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0}
.meta{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:.4rem .8rem;font-size:.9em}.markup{padding:.4rem .9rem;overflow-x:auto}
.markup table{border-collapse:collapse;margin:.6rem 0;display:block;overflow-x:auto}.markup th,.markup td{border:1px solid #d0d7de;padding:.3rem .7rem}
.markup tr:nth-child(2n){background:#f6f8fa}.markup th{background:#f6f8fa;font-weight:600}
.markup ul:has(> li > input[type=checkbox]){list-style:none;padding-left:1.2rem}.markup li>input[type=checkbox]{margin:0 .4em 0 -1.2rem}
.markup details{border:1px solid #eaeef2;border-radius:6px;padding:.3rem .7rem;margin:.4rem 0}.markup summary{cursor:pointer;font-weight:600}
.markup pre{background:#f6f8fa;padding:.6rem;border-radius:6px;overflow-x:auto}.label{padding:0 .4rem;border-radius:.6rem;color:#fff}
.mermaid{margin:.6rem 0}.error{color:#b42318}textarea{width:100%;min-height:6rem;box-sizing:border-box}
form.login label{display:block;margin:.5rem 0}`;

function page(title: string, body: string, viewer: WebViewer | null = null, signInTo = "/"): string {
  const who = viewer
    ? `Signed in as <strong>${escapeHtml(viewer.user.login)}</strong> <form method="post" action="/user/logout"><input type="hidden" name="_csrf" value="${escapeHtml(viewer.csrf)}"><button type="submit">Sign out</button></form>`
    : `<a href="/user/login?redirect_to=${encodeURIComponent(signInTo)}">Sign in</a>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
<script src="/assets/mermaid.min.js" defer></script><script src="/assets/checkpost-web.js" defer></script>
</head><body>
<p><a href="/">Forge</a> · ${who}</p>
${body}
</body></html>
`;
}

/** GET /user/login: the sign-in form, with a fresh anonymous CSRF token in a cookie and the form (double submit). */
export function renderLoginPage(redirectTo: string, csrf = newToken(), error?: string): WebResult {
  const body = `<h1>Sign in</h1>${error ? `<p class="error">${escapeHtml(error)}</p>` : ""}
<form class="login" method="post" action="/user/login">
<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="redirect_to" value="${escapeHtml(redirectTo)}">
<label>Username <input name="user_name" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>`;
  return { status: 200, html: page("Sign in", body), headers: { ...HEADERS, "Set-Cookie": `${CSRF_COOKIE}=${csrf}; Path=/; HttpOnly; SameSite=Lax` } };
}

export interface WebResult {
  status: number;
  html: string;
  headers: Record<string, string>;
}

const HEADERS = { "Content-Security-Policy": WEB_CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" };

function publicRepo(f: ForgeContext, owner: string, name: string): RepoRow | undefined {
  const repo = f.store.repoByName(owner, name);
  return repo && repo.private === 0 ? repo : undefined;
}

export function renderWeb(f: ForgeContext, pathname: string, viewer: WebViewer | null = null, search = ""): WebResult {
  if (pathname === "/user/login") return renderLoginPage(new URLSearchParams(search).get("redirect_to") ?? "/");
  if (pathname === "/") {
    const items = f.store
      .listRepos()
      .filter((r) => r.private === 0)
      .map((repo) => {
        const owner = f.store.userById(repo.owner_id)!;
        const full = `${owner.login}/${repo.name}`;
        const issues = f.store.issuesOfRepo(repo.id).map((i) => {
          const kind = i.is_pull ? "pulls" : "issues";
          return `<li><a href="/${escapeHtml(full)}/${kind}/${i.idx}">#${i.idx} ${escapeHtml(i.title)}</a> (${i.is_closed ? "closed" : "open"})</li>`;
        });
        return `<li><strong>${escapeHtml(full)}</strong><ul>${issues.join("")}</ul></li>`;
      });
    return { status: 200, html: page("Forge", `<h1>Repositories</h1><ul>${items.join("")}</ul>`, viewer), headers: HEADERS };
  }
  const m = /^\/([^/]+)\/([^/]+)\/(issues|pulls)\/(\d+)$/.exec(pathname);
  const repo = m ? publicRepo(f, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)) : undefined;
  const issue = m && repo ? f.store.issueByIndex(repo.id, Number(m[4])) : undefined;
  if (!repo || !issue) return { status: 404, html: page("Not found", "<h1>404 Not Found</h1>"), headers: HEADERS };
  const owner = f.store.userById(repo.owner_id)!;
  const poster = f.store.userById(issue.poster_id)!;
  const labels = f.store
    .labelsOfIssue(issue.id)
    .map((l) => `<span class="label" style="background:#${escapeHtml(l.color)}">${escapeHtml(l.name)}</span>`)
    .join(" ");
  const comments = f.store.listComments(issue.id, 0, 0).map((c) => {
    const author = f.store.userById(c.poster_id)!;
    return `<div class="comment" id="issuecomment-${c.id}"><div class="meta"><a href="/${escapeHtml(author.login)}">${escapeHtml(author.login)}</a> commented <a href="#issuecomment-${c.id}"><time datetime="${rfc3339(c.created_unix)}">${rfc3339(c.created_unix)}</time></a></div><div class="markup">${renderBody(c.body, `/api/v1/repos/${owner.login}/${repo.name}/issues/comments/${c.id}`)}</div></div>`;
  });
  const body = `<p><a href="/">Home</a> / ${escapeHtml(owner.login)}/${escapeHtml(repo.name)}</p>
<h1 class="issue-title">${escapeHtml(issue.title)} <span class="index">#${issue.idx}</span></h1>
<p class="state">${issue.is_closed ? "Closed" : "Open"}</p>
<p class="labels">${labels}</p>
<div class="issue-body" data-content-version="${issue.content_version}"><div class="meta">${escapeHtml(poster.login)} opened <time datetime="${rfc3339(issue.created_unix)}">${rfc3339(issue.created_unix)}</time></div><div class="markup">${renderBody(issue.body, `/api/v1/repos/${owner.login}/${repo.name}/issues/${issue.idx}`)}</div></div>
<div class="comments">${comments.join("\n")}</div>${viewer ? forms(`/${owner.login}/${repo.name}/issues/${issue.idx}`, viewer) : `<p><a href="/user/login?redirect_to=${encodeURIComponent(pathname)}">Sign in</a> to join this conversation.</p>`}`;
  return { status: 200, html: page(`${issue.title} - #${issue.idx} - ${owner.login}/${repo.name}`, body, viewer, pathname), headers: HEADERS };
}

/** A signed-in viewer's forms: a new comment, and the (hidden) task form the page script submits when a box is ticked. */
function forms(issuePath: string, viewer: WebViewer): string {
  const csrf = `<input type="hidden" name="_csrf" value="${escapeHtml(viewer.csrf)}">`;
  return `<form id="comment-form" method="post" action="${escapeHtml(issuePath)}/comments">${csrf}<textarea name="content" aria-label="Comment" placeholder="Leave a comment"></textarea><button type="submit">Comment</button></form>
<form id="task-form" method="post" action="${escapeHtml(issuePath)}/tasks" hidden>${csrf}<input type="hidden" name="position" value=""><input type="hidden" name="checked" value=""><input type="hidden" name="content_version" value=""></form>`;
}
