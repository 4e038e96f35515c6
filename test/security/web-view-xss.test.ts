/**
 * The embedded Forgejo's web view renders user Markdown and sanitizes it: the OWASP XSS filter-evasion
 * vectors (fixtures/xss/owasp-filter-evasion.json, with provenance) and the two links of issue 9 leave no
 * script, no event handler and no link or image with a scheme other than http(s)/mailto.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/embedded-forge/render-markdown.ts";
import { isSafeUrl } from "../../src/embedded-forge/safe-url.ts";
import { WEB_BODY_LIMIT, WEB_CSP } from "../../src/embedded-forge/web-view.ts";
import { api, asRecord, seededForge, type Seeded } from "../forge/helpers.ts";

interface Vector {
  name: string;
  input: string;
}
const fixture = JSON.parse(readFileSync(new URL("../../fixtures/xss/owasp-filter-evasion.json", import.meta.url), "utf8")) as {
  owasp: Vector[];
  extra: Vector[];
};
const vectors = [...fixture.owasp, ...fixture.extra];

const ALLOWED_TAGS = new Set([
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
]);

function decode(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/**
 * Every problem a browser could act on in sanitized output. Text is escaped by the sanitizer, so each
 * "<" in its output opens a real tag: the tags and their attributes can be read with a regular expression.
 */
const PAGE_CLASSES = new Set(["issue-title", "index", "state", "labels", "label", "issue-body", "meta", "markup", "comments", "comment", "truncated"]);

/** `page`: also accept the page's own chrome (body, html, its classes, comment anchors, label colours). */
function problems(html: string, page = false): string[] {
  const found: string[] = [];
  for (const tag of html.matchAll(/<(\/?)([a-zA-Z][^\s/>]*)([^>]*)>/g)) {
    const name = tag[2]!.toLowerCase();
    if (!ALLOWED_TAGS.has(name) && !(page && (name === "body" || name === "html"))) found.push(`element <${name}>`);
    for (const attr of tag[3]!.matchAll(/\s([^\s="'>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
      const attrName = attr[1]!.toLowerCase();
      const value = decode(attr[2] ?? attr[3] ?? attr[4] ?? "");
      if (page && attrName === "class" && PAGE_CLASSES.has(value)) continue;
      if (page && attrName === "id" && /^issuecomment-\d+$/.test(value)) continue;
      if (page && attrName === "style" && /^background:#[0-9a-f]{6}$/.test(value)) continue;
      if (attrName.startsWith("on")) found.push(`event handler ${attrName}`);
      if (["style", "id", "name", "srcdoc", "formaction", "action", "background", "dynsrc", "lowsrc", "data"].includes(attrName)) {
        found.push(`attribute ${attrName}`);
      }
      if (attrName === "href" || attrName === "src") {
        // The browser's own URL parser decides the scheme (tabs, newlines and leading controls removed).
        const protocol = new URL(value, "http://forge.invalid/").protocol;
        if (!["http:", "https:", "mailto:"].includes(protocol)) found.push(`${attrName} with ${protocol}`);
      }
      if (attrName === "class" && !/^language-[\w.+-]+$/.test(value)) found.push(`class ${value}`);
    }
  }
  return found;
}

describe("renderMarkdown sanitizes like Forgejo", () => {
  it.each(vectors.map((v) => [v.name, v.input] as const))("%s", (_name, input) => {
    const html = renderMarkdown(input);
    expect(problems(html)).toEqual([]);
    expect(html).not.toMatch(/<\s*(script|iframe|style|object|embed|svg|math|base|meta|link|form|frame|template)\b/i);
  });

  it("the checker itself catches what it must (else the cases above prove nothing)", () => {
    expect(problems('<a href="java\tscript:alert(1)">x</a>')).toEqual(["href with javascript:"]);
    expect(problems('<a href="&#1;javascript:alert(1)">x</a>')).toEqual(["href with javascript:"]);
    expect(problems('<img src="data:image/png;base64,AA">')).toEqual(["src with data:"]);
    expect(problems("<img src=x onerror=alert(1)>")).toEqual(["event handler onerror"]);
    expect(problems("<script>alert(1)</script>")).toEqual(["element <script>", "element <script>"]);
    expect(problems('<p style="color:red">x</p>')).toEqual(["attribute style"]);
  });

  it("keeps the two links of issue 9 as text, without a live javascript: link", () => {
    for (const input of ["[x](<java\tscript:alert(1)>)", "[x](<\u0001javascript:alert(1)>)"]) {
      const html = renderMarkdown(input);
      expect(html).toContain("x");
      expect(problems(html)).toEqual([]);
    }
  });

  it("keeps what Forgejo keeps: formatting, safe links, images, code language, task lists, tables, details", () => {
    const html = renderMarkdown(
      [
        "**bold** _em_ ~~gone~~ `code`",
        "",
        "[site](https://example.org/a?b=1&c=2) [mail](mailto:a@example.org) [rel](/alice/widgets) [frag](#top) [proto](//example.org/x)",
        "",
        "![logo](https://example.org/logo.png)",
        "",
        "```json",
        '{"a": 1}',
        "```",
        "",
        "- [x] done",
        "- [ ] todo",
        "",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "",
        "<details><summary>more</summary>hidden <kbd>Ctrl</kbd></details>",
        "",
        "line one",
        "line two",
      ].join("\n"),
    );
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<em>em</em>");
    expect(html).toContain("<del>gone</del>");
    expect(html).toContain('<a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">site</a>');
    expect(html).toContain('<a href="mailto:a@example.org" rel="nofollow noopener noreferrer">mail</a>');
    expect(html).toContain('href="/alice/widgets"');
    expect(html).toContain('href="#top"');
    expect(html).toContain('href="//example.org/x"');
    expect(html).toContain('<img src="https://example.org/logo.png" alt="logo" />');
    expect(html).toContain('<code class="language-json">');
    // Forgejo's form: a disabled checkbox carrying its source offset (modules/markup/markdown/transform_list.go:27).
    expect(html).toMatch(/<input type="checkbox" disabled(="")? checked(="")? data-source-position="\d+" \/>/);
    expect(html).toContain("<table>");
    expect(html).toContain("<details><summary>more</summary>hidden <kbd>Ctrl</kbd></details>");
    expect(html).toContain("line one<br />line two"); // Forgejo: hard line breaks in comments
    expect(problems(html)).toEqual([]);
  });

  it("drops script and style content entirely, keeps the text of other unknown elements", () => {
    expect(renderMarkdown("a <script>alert(1)</script> b")).not.toContain("alert");
    expect(renderMarkdown("a <style>p{color:red}</style> b")).not.toContain("color");
    expect(renderMarkdown("a <blink>kept</blink> b")).toContain("kept");
  });

  it("shows text instead of failing when the Markdown renderer overflows", () => {
    const deep = `${">".repeat(10_000)} <img src=x onerror=alert(1)> end`;
    const html = renderMarkdown(deep);
    expect(html).toContain("end");
    expect(problems(html)).toEqual([]);
  });
});

describe("isSafeUrl normalises like a browser", () => {
  it.each([
    ["https://example.org", "link", true],
    ["mailto:a@example.org", "link", true],
    ["/relative", "link", true],
    ["#frag", "link", true],
    ["java\tscript:alert(1)", "link", false],
    ["\u0001javascript:alert(1)", "link", false],
    [" \n javascript:alert(1)", "link", false],
    ["JaVaScRiPt:alert(1)", "link", false],
    ["data:text/html,x", "link", false],
    ["vbscript:x", "link", false],
    ["mailto:a@example.org", "image", false],
    ["https://example.org/x.png", "image", true],
  ] as const)("%j as %s: %s", (url, kind, ok) => {
    expect(isSafeUrl(url, kind)).toBe(ok);
  });
});

describe("web view page", () => {
  let s: Seeded | undefined;
  afterEach(async () => {
    await s?.forge.close();
    s = undefined;
  });

  it("serves every vector in one issue with no live script, and a CSP that forbids scripts", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "xss", body: vectors[0]!.input });
    for (const v of vectors.slice(1)) {
      const r = await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: v.input } });
      expect(r.status).toBe(201);
    }
    const res = await fetch(`${s.forge.url}/alice/widgets/issues/${i.number}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(WEB_CSP);
    expect(WEB_CSP).toContain("default-src 'none'");
    // Scripts only from the server itself (mermaid and the page script): never inline, never eval, never a CDN.
    expect(WEB_CSP).toContain("script-src 'self';");
    expect(WEB_CSP).not.toMatch(/unsafe-eval|script-src[^;]*(unsafe-inline|https?:|\*)/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await res.text();
    // The page's own <head> (title, charset, stylesheet) comes before any user content; the rest is checked whole.
    const head = /^[\s\S]*?<\/head>/.exec(html)![0];
    expect(head).not.toContain("xss.rocks");
    const rest = html.slice(head.length);
    expect(rest).toContain("xxs link");
    expect(problems(rest, true)).toEqual([]);
    expect(rest).not.toMatch(/<\s*(script|iframe|style|object|embed|svg|base|meta|link|form|frame)\b/i);
  });

  it("renders an issue with an 8 MB comment, truncated, instead of answering 500 (30 MB: web-view-huge-30mib.test.ts)", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "huge" });
    const eight = `[CHECKPOINT] evil\n${"x".repeat(8 * 1024 * 1024)}`;
    const a = asRecord((await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: eight } })).json);
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: "small **after**" } });
    const res = await fetch(`${s.forge.url}/alice/widgets/issues/${i.number}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html.length).toBeLessThan(4 * WEB_BODY_LIMIT);
    expect(html).toContain(`Truncated: this text is ${eight.length.toLocaleString("en-US")} characters`);
    expect(html).toContain(`/api/v1/repos/alice/widgets/issues/comments/${String(a.id)}`);
    expect(html).toContain("<strong>after</strong>");
  });
});
