/** Read-only HTML view: "/" (repos and issues) and "/{owner}/{repo}/issues/{n}" (Forgejo's path). */
import { Marked, type Tokens } from "marked";
import type { ForgeContext } from "./context.ts";
import { rfc3339 } from "./time.ts";
import type { RepoRow } from "./types.ts";

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Only http(s), mailto, fragment and relative links survive; javascript:, data: etc. are dropped. */
function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:|mailto:)/i.test(h) || h.startsWith("#") || h.startsWith("/") || !/^[a-z][a-z0-9+.-]*:/i.test(h)) return h;
  return null;
}

const markdown = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in user content is shown as text, never interpreted.
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const href = safeHref(token.href);
      if (href === null) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} rel="nofollow noopener">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const href = safeHref(token.href);
      if (href === null) return escapeHtml(token.text);
      return `<img src="${escapeHtml(href)}" alt="${escapeHtml(token.text)}">`;
    },
  },
});

export function renderMarkdown(src: string): string {
  const out = markdown.parse(src);
  return typeof out === "string" ? out : "";
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
}

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
    return { status: 200, html: page("Forge", `<h1>Repositories</h1><ul>${items.join("")}</ul>`) };
  }
  const m = /^\/([^/]+)\/([^/]+)\/(issues|pulls)\/(\d+)$/.exec(pathname);
  const repo = m ? publicRepo(f, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)) : undefined;
  const issue = m && repo ? f.store.issueByIndex(repo.id, Number(m[4])) : undefined;
  if (!repo || !issue) return { status: 404, html: page("Not found", "<h1>404 Not Found</h1>") };
  const owner = f.store.userById(repo.owner_id)!;
  const poster = f.store.userById(issue.poster_id)!;
  const labels = f.store.labelsOfIssue(issue.id)
    .map((l) => `<span class="label" style="background:#${escapeHtml(l.color)}">${escapeHtml(l.name)}</span>`).join(" ");
  const comments = f.store.listComments(issue.id, 0, 0).map((c) => {
    const author = f.store.userById(c.poster_id)!;
    return `<div class="comment" id="issuecomment-${c.id}"><div class="meta"><a href="/${escapeHtml(author.login)}">${escapeHtml(author.login)}</a> commented <a href="#issuecomment-${c.id}"><time datetime="${rfc3339(c.created_unix)}">${rfc3339(c.created_unix)}</time></a></div><div class="markup">${renderMarkdown(c.body)}</div></div>`;
  });
  const body = `<p><a href="/">Home</a> / ${escapeHtml(owner.login)}/${escapeHtml(repo.name)}</p>
<h1 class="issue-title">${escapeHtml(issue.title)} <span class="index">#${issue.idx}</span></h1>
<p class="state">${issue.is_closed ? "Closed" : "Open"}</p>
<p class="labels">${labels}</p>
<div class="issue-body"><div class="meta">${escapeHtml(poster.login)} opened <time datetime="${rfc3339(issue.created_unix)}">${rfc3339(issue.created_unix)}</time></div><div class="markup">${renderMarkdown(issue.body)}</div></div>
<div class="comments">${comments.join("\n")}</div>`;
  return { status: 200, html: page(`${issue.title} - #${issue.idx} - ${owner.login}/${repo.name}`, body) };
}
