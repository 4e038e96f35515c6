/**
 * renderMarkdown(): user Markdown to safe HTML, the way Forgejo renders a comment: Markdown (GFM, hard
 * line breaks as Forgejo's EnableHardLineBreakInComments default) with raw HTML passed through
 * (goldmark's WithUnsafe), then the whole result sanitized (sanitizeMarkup). Forgejo recovers from a
 * renderer panic by emitting the raw text; here a renderer failure (marked overflows its stack on some
 * inputs) shows the text escaped in a <pre>.
 */
import { randomBytes } from "node:crypto";
import { Marked } from "marked";
import { escapeHtml } from "./escape-html.ts";
import { sanitizeMarkup } from "./sanitize-markup.ts";
import { taskPositions } from "./task-positions.ts";

/** The render in progress (renderMarkdown is synchronous): its task boxes' source offsets and nonce. */
let current: { nonce: string; positions: (number | null)[]; next: number } | null = null;

const markdown = new Marked({ gfm: true, breaks: true, async: false });
markdown.use({
  renderer: {
    // A genuine task box carries the render's nonce: raw `<input>` in people's text cannot, so the
    // sanitizer drops it (issue 19.5: a raw box would shift or fake the dashboard's boxes).
    checkbox({ checked }) {
      const c = current;
      if (!c) return false;
      const pos = c.positions[c.next++] ?? null;
      return `<input type="checkbox" disabled="" data-task="${c.nonce}:${pos ?? "-"}"${checked ? ' checked=""' : ""}> `;
    },
  },
});

export function renderMarkdown(src: string): string {
  let html: string;
  const nonce = randomBytes(12).toString("hex");
  try {
    current = { nonce, positions: taskPositions(src), next: 0 };
    const out = markdown.parse(src);
    html = typeof out === "string" ? out : "";
  } catch {
    html = `<pre>${escapeHtml(src)}</pre>`;
  } finally {
    current = null;
  }
  return sanitizeMarkup(html, { taskNonce: nonce });
}
