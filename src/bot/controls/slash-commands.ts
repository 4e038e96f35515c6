import { CONTROLS } from "../../protocol/index.ts";
import type { ControlAction } from "../../protocol/index.ts";

export interface SlashCommand {
  action: ControlAction;
  agent: string;
  session: string;
  /** rewind: a comment id or a checkpoint `Id:`. */
  target?: string;
  /** The command line as written (for replies). */
  line: string;
}

export type SlashParse = SlashCommand | { error: string; line: string };

/** "pause, resume, rewind, release or hide": each action's first verb, as replies and the dashboard say it. */
export function verbList(): string {
  const first = CONTROLS.actions.map((a) => a.verbs[0] as string);
  return first.length > 1 ? `${first.slice(0, -1).join(", ")} or ${first.at(-1)}` : (first[0] ?? "");
}

/** Split on spaces, keeping "double quoted words" together. */
function words(s: string): string[] {
  return [...s.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] as string)));
}

/**
 * `/checkpost <verb> <agent> <session> [checkpoint]` lines of a comment (one
 * command per line, at the start of the line, outside code fences). Verbs are
 * the control registry's (protocol/controls: pause, resume (= unpause), rewind,
 * release, hide); an action with a target needs a checkpoint (comment id or Id). Pure.
 *
 * @example parseSlashCommands('/checkpost pause implementation-worker "sess 42"')
 */
export function parseSlashCommands(body: string): SlashParse[] {
  const out: SlashParse[] = [];
  let fenced = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced || !/^\/checkpost(\s|$)/.test(line)) continue;
    if (out.length >= 10) break; // a comment is not a batch job
    const w = words(line.slice("/checkpost".length));
    const [verb, agent, session, target, ...rest] = w;
    const spec = verb ? CONTROLS.byVerb(verb) : undefined;
    if (!spec) {
      out.push({ error: `unknown command "${verb ?? ""}": use ${verbList()}`, line });
      continue;
    }
    const action = spec.action;
    if (!agent || !session) {
      out.push({ error: `usage: /checkpost ${verb} <agent> <session>${spec.target ? " <checkpoint>" : ""}`, line });
      continue;
    }
    if (spec.target && !target) {
      out.push({ error: `usage: /checkpost ${verb?.toLowerCase()} <agent> <session> <checkpoint> (a comment id or a checkpoint Id from the dashboard)`, line });
      continue;
    }
    if ((!spec.target && target !== undefined) || rest.length) {
      out.push({ error: `too many words: quote names with spaces ("like this")`, line });
      continue;
    }
    out.push({ action, agent, session, ...(target !== undefined ? { target } : {}), line });
  }
  return out;
}
