/**
 * renderMarkdown(): user Markdown to safe HTML, the way Forgejo renders a comment: Markdown (GFM, hard
 * line breaks as Forgejo's EnableHardLineBreakInComments default) with raw HTML passed through
 * (goldmark's WithUnsafe), then the whole result sanitized (sanitizeMarkup). Forgejo recovers from a
 * renderer panic by emitting the raw text; here a renderer failure (marked overflows its stack on some
 * inputs) shows the text escaped in a <pre>.
 */
import { Marked } from "marked";
import { escapeHtml } from "./escape-html.ts";
import { sanitizeMarkup } from "./sanitize-markup.ts";

const markdown = new Marked({ gfm: true, breaks: true, async: false });

export function renderMarkdown(src: string): string {
  let html: string;
  try {
    const out = markdown.parse(src);
    html = typeof out === "string" ? out : "";
  } catch {
    html = `<pre>${escapeHtml(src)}</pre>`;
  }
  return sanitizeMarkup(html);
}
