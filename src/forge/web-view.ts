/** Read-only HTML view: "/" (repos and issues) and "/{owner}/{repo}/issues/{n}" (Forgejo's path). */
import type { ForgeContext } from "./context.ts";
import { escapeHtml } from "./escape-html.ts";
import { renderMarkdown } from "./render-markdown.ts";
import { rfc3339 } from "./time.ts";
import type { RepoRow } from "./types.ts";

/**
 * Characters of one comment (or issue body) rendered in the page. Forgejo caps its rendered output
 * (MaxDisplayFileSize * 3) so its UI stays usable; here the source is cut before rendering, which also
 * keeps the Markdown renderer fast on an 8 MB or 30 MB comment. The full text stays in the API.
 */
export const WEB_BODY_LIMIT = 64 * 1024;

/**
 * No script, no plugin, no form target, no framing: the page is static HTML, so even markup that got
 * past the sanitizer could not run. Inline styles are allowed for the page's own stylesheet.
 */
export const WEB_CSP = "default-src 'none'; img-src http: https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The rendered body, cut at WEB_BODY_LIMIT (never inside a surrogate pair) with a note where to read the rest. */
function renderBody(body: string, apiPath: string): string {
  if (body.length <= WEB_BODY_LIMIT) return renderMarkdown(body);
  let cut = WEB_BODY_LIMIT;
  const last = body.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  const note = `<p class="truncated"><em>Truncated: this text is ${body.length.toLocaleString("en-US")} characters; the page shows the first ${cut.toLocaleString("en-US")}. The full text is at <code>GET ${escapeHtml(apiPath)}</code>.</em></p>`;
  return renderMarkdown(body.slice(0, cut)) + note;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}.comment{border:1px solid #ccc;margin:1rem 0;padding:.5rem}.label{padding:0 .3rem;border-radius:.2rem}</style>
</head><body>
${body}
</body></html>
`;
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

export function renderWeb(f: ForgeContext, pathname: string): WebResult {
  if (pathname === "/") {
    const items = f.store.listRepos().filter((r) => r.private === 0).map((repo) => {
      const owner = f.store.userById(repo.owner_id)!;
      const full = `${owner.login}/${repo.name}`;
      const issues = f.store.issuesOfRepo(repo.id).map((i) => {
        const kind = i.is_pull ? "pulls" : "issues";
        return `<li><a href="/${escapeHtml(full)}/${kind}/${i.idx}">#${i.idx} ${escapeHtml(i.title)}</a> (${i.is_closed ? "closed" : "open"})</li>`;
      });
      return `<li><strong>${escapeHtml(full)}</strong><ul>${issues.join("")}</ul></li>`;
    });
    return { status: 200, html: page("Forge", `<h1>Repositories</h1><ul>${items.join("")}</ul>`), headers: HEADERS };
  }
  const m = /^\/([^/]+)\/([^/]+)\/(issues|pulls)\/(\d+)$/.exec(pathname);
  const repo = m ? publicRepo(f, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)) : undefined;
  const issue = m && repo ? f.store.issueByIndex(repo.id, Number(m[4])) : undefined;
  if (!repo || !issue) return { status: 404, html: page("Not found", "<h1>404 Not Found</h1>"), headers: HEADERS };
  const owner = f.store.userById(repo.owner_id)!;
  const poster = f.store.userById(issue.poster_id)!;
  const labels = f.store.labelsOfIssue(issue.id)
    .map((l) => `<span class="label" style="background:#${escapeHtml(l.color)}">${escapeHtml(l.name)}</span>`).join(" ");
  const comments = f.store.listComments(issue.id, 0, 0).map((c) => {
    const author = f.store.userById(c.poster_id)!;
    return `<div class="comment" id="issuecomment-${c.id}"><div class="meta"><a href="/${escapeHtml(author.login)}">${escapeHtml(author.login)}</a> commented <a href="#issuecomment-${c.id}"><time datetime="${rfc3339(c.created_unix)}">${rfc3339(c.created_unix)}</time></a></div><div class="markup">${renderBody(c.body, `/api/v1/repos/${owner.login}/${repo.name}/issues/comments/${c.id}`)}</div></div>`;
  });
  const body = `<p><a href="/">Home</a> / ${escapeHtml(owner.login)}/${escapeHtml(repo.name)}</p>
<h1 class="issue-title">${escapeHtml(issue.title)} <span class="index">#${issue.idx}</span></h1>
<p class="state">${issue.is_closed ? "Closed" : "Open"}</p>
<p class="labels">${labels}</p>
<div class="issue-body"><div class="meta">${escapeHtml(poster.login)} opened <time datetime="${rfc3339(issue.created_unix)}">${rfc3339(issue.created_unix)}</time></div><div class="markup">${renderBody(issue.body, `/api/v1/repos/${owner.login}/${repo.name}/issues/${issue.idx}`)}</div></div>
<div class="comments">${comments.join("\n")}</div>`;
  return { status: 200, html: page(`${issue.title} - #${issue.idx} - ${owner.login}/${repo.name}`, body), headers: HEADERS };
}
