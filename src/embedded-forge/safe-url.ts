/**
 * Whether a link or image URL may stay in the page: http(s), mailto, relative paths and fragments.
 *
 * The URL is parsed with the WHATWG URL parser, the same algorithm browsers use, so it sees the scheme a
 * browser would see: leading C0 controls and spaces are stripped and tab/CR/LF are removed anywhere
 * (`java\tscript:` and `\u0001javascript:` are both `javascript:` to a browser, and to this check).
 * This runs in addition to sanitize-html's own scheme filter (defence in depth).
 */
const BASE = "http://forge.invalid/base/";
const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const IMAGE_PROTOCOLS = new Set(["http:", "https:"]);

export function isSafeUrl(value: string, kind: "link" | "image" = "link"): boolean {
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return false; // a browser would not follow it either; dropping it loses nothing
  }
  return (kind === "image" ? IMAGE_PROTOCOLS : LINK_PROTOCOLS).has(url.protocol);
}
