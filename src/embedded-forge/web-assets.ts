import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * Static files of the web view, served from this server only (never a CDN): the mermaid npm
 * package's browser bundle and the page script below. Read once, on first use.
 */
let mermaid: Buffer | null = null;

function mermaidBundle(): Buffer {
  mermaid ??= readFileSync(createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js"));
  return mermaid;
}

/**
 * The page's own script (no inline script: the CSP allows scripts from this origin only). It draws
 * ```mermaid blocks with mermaid (closed <details> when first opened, as a hidden chart has no size),
 * and, for a signed-in viewer, turns the issue body's task-list checkboxes into controls: a change
 * submits the task form (the box's source offset, new state, the page's content_version, CSRF token),
 * as Forgejo's UI does (web_src/js/markup/tasklist.js).
 */
const PAGE_JS = `(function () {
  "use strict";
  var m = window.mermaid;
  if (m) m.initialize({ startOnLoad: false, securityLevel: "strict" });
  var draw = function (root) {
    if (!m) return;
    var nodes = Array.prototype.filter.call(root.querySelectorAll("div.mermaid:not([data-processed])"), function (n) {
      var d = n.closest("details");
      return !d || d.open;
    });
    if (nodes.length) m.run({ nodes: nodes });
  };
  Array.prototype.forEach.call(document.querySelectorAll("code.language-mermaid"), function (code) {
    var div = document.createElement("div");
    div.className = "mermaid";
    div.textContent = code.textContent;
    code.parentNode.replaceWith(div);
  });
  draw(document);
  Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) {
    d.addEventListener("toggle", function () { if (d.open) draw(d); });
  });
  var form = document.getElementById("task-form");
  if (form) {
    var body = document.querySelector(".issue-body");
    var boxes = document.querySelectorAll(".issue-body .markup input[type=checkbox][data-source-position]");
    Array.prototype.forEach.call(boxes, function (box) {
      box.disabled = false;
      box.addEventListener("change", function () {
        form.elements.position.value = box.getAttribute("data-source-position");
        form.elements.checked.value = box.checked ? "true" : "false";
        form.elements.content_version.value = body.getAttribute("data-content-version");
        form.submit();
      });
    });
  }
})();
`;

export function webAsset(pathname: string): { body: Buffer; contentType: string } | null {
  if (pathname === "/assets/mermaid.min.js") return { body: mermaidBundle(), contentType: "text/javascript; charset=utf-8" };
  if (pathname === "/assets/checkpost-web.js") return { body: Buffer.from(PAGE_JS, "utf8"), contentType: "text/javascript; charset=utf-8" };
  return null;
}
