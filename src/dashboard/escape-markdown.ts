const WORD_JOINER = "\u2060";

/**
 * Make an untrusted value (agent, session, phase, status, detail) safe inside
 * a Markdown table cell or list item: no HTML (`<` `>` `&` `"` become
 * entities), no Markdown (ASCII punctuation that Markdown reacts to is
 * backslash-escaped, so a `|` cannot split a cell), one line, no @mention and
 * no #issue reference (a word joiner follows `@`/`#`), at most `max` characters.
 *
 * @example escapeMarkdown("a|b <i>") // "a\\|b &lt;i&gt;"
 */
export function escapeMarkdown(value: string, max = 80): string {
  const chars = [...value.replace(/[\r\n\t\v\f\u2028\u2029]+/g, " ")];
  const cut = chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
  return cut
    .replace(/[\\`*_{}[\]()#+!|~]/g, (c) => `\\${c}`)
    .replace(/:(?=\/\/)/g, "\\:")
    .replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"))
    .replace(/([@#])(?=[\p{L}\p{N}_])/gu, `$1${WORD_JOINER}`);
}

/**
 * A link target we are willing to write: http(s) only, with characters that
 * would end a Markdown link destination percent-encoded. Anything else → null.
 */
export function safeUrl(url: string | undefined): string | null {
  if (url === undefined || !/^https?:\/\/[^\s]+$/i.test(url)) return null;
  return url.replace(/[()<>"'\\`|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}
