import { CONTROLS } from "../protocol/index.ts";
import type { ControlAction } from "../protocol/index.ts";
import { escapeMarkdown } from "./escape-markdown.ts";

/**
 * A box change found on restart that the bot did not run: it was made while the bot was down, and the
 * issue's poster may not command, so whoever edited the body may not have been allowed to (issue 28.4).
 */
export interface UnconfirmedChange {
  action: ControlAction;
  agent: string;
  session: string;
  /** rewind: the target checkpoint's comment id. */
  target?: number;
}

/**
 * Text fit inside backticks: no backtick, one line, short, and no `<` (a lookalike instead): the raw body
 * of a bot comment or the dashboard must never carry a marker a reader acts on, such as a quoted
 * `<!-- checkpost:continued-in #N -->` (issue 28.6).
 */
export function escapeCode(s: string): string {
  return [...s.replace(/[`\r\n]/g, " ").replace(/</g, "\uFF1C")].slice(0, 120).join("");
}

/** A name as a slash command takes it: quoted when it has a space or a quote. */
function quoteWord(s: string): string {
  const plain = escapeCode(s);
  return /[\s"]/.test(plain) ? `"${plain.replace(/["\\]/g, "\\$&")}"` : plain;
}

/**
 * The slash command that does what the change asked, as a person with write access comments it (no
 * backticks around it; safe inside them).
 *
 * @example confirmCommand({ action: "unpause", agent: "w", session: "s1" }) // "/checkpost resume w s1"
 */
export function confirmCommand(c: UnconfirmedChange): string {
  return `/checkpost ${CONTROLS.byName(c.action)?.verbs[0] ?? c.action} ${quoteWord(c.agent)} ${quoteWord(c.session)}${c.target !== undefined ? ` ${c.target}` : ""}`;
}

/** The box as a person saw it change ("Pause ticked", "Pause unticked", "Rewind to comment 12 ticked"): its name from the registry. */
function boxChange(c: UnconfirmedChange): string {
  const untick = CONTROLS.untickOf(c.action);
  if (untick) return `${untick.box.name} unticked`;
  const name = CONTROLS.byName(c.action)?.box?.name ?? c.action;
  return `${name}${c.target !== undefined ? ` to comment ${c.target}` : ""} ticked`;
}

/**
 * The "Needs attention" line of one unconfirmed change, in Markdown: which box changed for whom, and the
 * exact command that confirms it. Pure.
 */
export function unconfirmedChangeText(c: UnconfirmedChange): string {
  return `⚠️ **Not run, needs confirming:** while the bot was down, the dashboard's ${boxChange(c)} for ${escapeMarkdown(c.agent, 60)} / ${escapeMarkdown(c.session, 60)}; the editor is unknown and may not command agents, so nothing was done. To do it, a person with write access comments \`${confirmCommand(c)}\`.`;
}
