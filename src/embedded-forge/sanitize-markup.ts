/**
 * sanitizeMarkup(): the HTML allow-list applied to rendered user Markdown, like Forgejo's bluemonday
 * policy (modules/markup/sanitizer_default.go: bluemonday.UGCPolicy() plus "generally safe" elements
 * and attributes, javascript:/vbscript:/data: links refused). Narrower than Forgejo's on purpose: no
 * style attribute, no video/svg/MathML, no id/name (no DOM clobbering), and link schemes limited to
 * http(s) and mailto (Forgejo allows any scheme but those three by default).
 */
import sanitizeHtml from "sanitize-html";
import { isSafeUrl } from "./safe-url.ts";

const ALLOWED_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "br",
  "b",
  "i",
  "strong",
  "em",
  "a",
  "pre",
  "code",
  "img",
  "tt",
  "div",
  "ins",
  "del",
  "sup",
  "sub",
  "p",
  "ol",
  "ul",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "blockquote",
  "dl",
  "dt",
  "dd",
  "kbd",
  "q",
  "samp",
  "var",
  "hr",
  "ruby",
  "rt",
  "rp",
  "li",
  "tr",
  "td",
  "th",
  "s",
  "strike",
  "summary",
  "details",
  "caption",
  "figure",
  "figcaption",
  "abbr",
  "bdo",
  "cite",
  "dfn",
  "mark",
  "small",
  "span",
  "time",
  "wbr",
  "input",
];

/** Elements whose content is dropped with them (sanitize-html's defaults plus the other raw-text and embedding elements). */
const DROP_WITH_CONTENT = [
  "script",
  "style",
  "textarea",
  "option",
  "noscript",
  "iframe",
  "object",
  "embed",
  "applet",
  "template",
  "xmp",
  "noembed",
  "noframes",
  "frameset",
  "frame",
  "svg",
  "math",
  "select",
  "title",
  "head",
  "plaintext",
];

function dropUnsafeUrl(attr: "href" | "src", kind: "link" | "image"): sanitizeHtml.Transformer {
  return (tagName, attribs) => {
    const value = attribs[attr];
    const kept = { ...attribs };
    if (value !== undefined && !isSafeUrl(value, kind)) delete kept[attr];
    if (tagName === "a") kept.rel = "nofollow noopener noreferrer";
    return { tagName, attribs: kept };
  };
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  nonTextTags: DROP_WITH_CONTENT,
  disallowedTagsMode: "discard",
  allowedAttributes: {
    "*": ["title", "lang", "dir", "align", "aria-hidden", "aria-label"],
    a: ["href", "rel"],
    img: ["src", "alt", "width", "height", "loading"],
    td: ["colspan", "rowspan"],
    th: ["colspan", "rowspan"],
    ol: ["start"],
    details: ["open"],
    time: ["datetime"],
    input: [{ name: "type", multiple: false, values: ["checkbox"] }, "checked", "disabled", "data-source-position"],
  },
  // Fenced code keeps its language class (`language-json`, `language-mermaid`) and nothing else.
  allowedClasses: { code: [/^language-[\w.+-]{1,40}$/] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowedSchemesAppliedToAttributes: ["href", "src", "cite"],
  allowProtocolRelative: true,
  transformTags: { a: dropUnsafeUrl("href", "link"), img: dropUnsafeUrl("src", "image") },
  // A task-list checkbox the renderer drew is the only input that survives (see sanitizeMarkup).
  exclusiveFilter: (frame) => frame.tag === "input" && frame.attribs.type !== "checkbox",
};

/**
 * `taskNonce`: the render's nonce (renderMarkdown). Only inputs carrying it (task-list boxes the
 * renderer drew) are kept, with their source offset as `data-source-position` (as Forgejo's);
 * every other `<input>` (raw HTML in people's text) is removed. Without a nonce every input goes.
 */
export function sanitizeMarkup(html: string, opts: { taskNonce?: string } = {}): string {
  const nonce = opts.taskNonce;
  return sanitizeHtml(html, {
    ...OPTIONS,
    transformTags: {
      ...OPTIONS.transformTags,
      input: (tagName, attribs) => {
        const m = nonce !== undefined ? /^([0-9a-f]+):(\d{1,9}|-)$/.exec(attribs["data-task"] ?? "") : null;
        if (!m || m[1] !== nonce) return { tagName, attribs: { type: "dropped" } };
        return {
          tagName,
          attribs: { type: "checkbox", disabled: "", ...("checked" in attribs ? { checked: "" } : {}), ...(m[2] !== "-" ? { "data-source-position": m[2] as string } : {}) },
        };
      },
    },
  });
}
