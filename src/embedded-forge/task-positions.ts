/**
 * Where each task-list checkbox of a Markdown text is, as Forgejo's renderer marks it: the offset of
 * its `[` in the source (modules/markup/markdown/transform_list.go:27 writes `data-source-position`;
 * web_src/js/markup/tasklist.js:26-40 toggles the character after it, after checking it is `[ ]` or
 * `[x]`). A box is found by where it is in the source, never by counting lines that look like tasks:
 * a task line inside an HTML comment or an HTML block renders no box and shifts nothing.
 */
import { Lexer } from "marked";
import type { Token, Tokens } from "marked";

const LEXER_OPTIONS = { gfm: true, breaks: true } as const;
const ITEM_BOX = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(\[[ xX]\])/;

/**
 * One entry per checkbox the renderer draws, in render order: its offset in the text with line
 * ends normalised to `\n` (as marked reads it), or null for a box whose offset is not known (a task
 * inside a blockquote or a nested list: shown, never tickable).
 */
export function taskPositions(src: string): (number | null)[] {
  const text = src.replace(/\r\n|\r/g, "\n");
  const out: (number | null)[] = [];
  const visit = (tokens: readonly Token[], offset: number | null) => {
    let at = offset;
    for (const t of tokens) {
      if (at !== null && !text.startsWith(t.raw, at)) at = null; // lost track: later boxes are not tickable
      if (t.type === "list") {
        let itemAt = at;
        for (const item of (t as Tokens.List).items) {
          if (itemAt !== null && !text.startsWith(item.raw, itemAt)) {
            const found = text.indexOf(item.raw, itemAt);
            itemAt = found < 0 ? null : found;
          }
          if (item.task) {
            const m = itemAt !== null ? ITEM_BOX.exec(item.raw) : null;
            out.push(m && itemAt !== null ? itemAt + m[0].length - m[1]!.length : null);
          }
          visit(item.tokens, null);
          if (itemAt !== null) itemAt += item.raw.length;
        }
      } else if ("tokens" in t && Array.isArray(t.tokens)) visit(t.tokens, null);
      if (at !== null) at += t.raw.length;
    }
  };
  visit(Lexer.lex(text, LEXER_OPTIONS), 0);
  return out;
}

/** The index in `src` of offset `p` of its `\n`-normalised text (a `\r\n` counts as one). */
export function sourceIndex(src: string, p: number): number {
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    if (n === p) return i;
    if (src[i] === "\r" && src[i + 1] === "\n") continue;
    n++;
  }
  return n === p ? src.length : -1;
}

/**
 * Set the box at normalised offset `position` (one of taskPositions) to `checked`; null when no
 * rendered box is there (the page was built from another text, or a position was made up).
 */
export function setTaskAt(src: string, position: number, checked: boolean): string | null {
  if (!taskPositions(src).includes(position)) return null;
  const i = sourceIndex(src, position);
  if (i < 0 || src[i] !== "[" || src[i + 2] !== "]" || !" xX".includes(src[i + 1] ?? "")) return null;
  return `${src.slice(0, i + 1)}${checked ? "x" : " "}${src.slice(i + 2)}`;
}
