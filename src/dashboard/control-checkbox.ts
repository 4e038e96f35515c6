import { CONTROLS } from "../protocol/index.ts";
import type { ControlAction, ControlBox } from "../protocol/index.ts";
import { bodyHash } from "../projection/body-hash.ts";
import { DASHBOARD_END, DASHBOARD_START } from "./markers.ts";

/** The actions a dashboard checkbox can carry: the registry's actions with a box (`unpause` is unticking pause). */
export type CheckboxAction = ControlAction;

export interface ControlCheckbox {
  action: CheckboxAction;
  agent: string;
  session: string;
  /** rewind: the target checkpoint's comment id. */
  target?: number;
  checked: boolean;
}

const PREFIX = "<!-- checkpost:control ";
let boxLine: RegExp | undefined;
/**
 * A task-list line carrying a control's hidden key: `- [x] <!-- checkpost:control pause <key> --> …`. Its
 * actions are the registry's boxed ones (built on first use; names are [a-z-] only, so safe in a pattern).
 */
function boxLinePattern(): RegExp {
  boxLine ??= new RegExp(`^\\s*[-*] \\[([ xX])\\] <!-- checkpost:control (${CONTROLS.boxed.join("|")}) ([A-Za-z0-9_-]{1,2800})(?: (\\d{1,16}))? -->`);
  return boxLine;
}

/**
 * agent+session as base64url of their JSON: only [A-Za-z0-9_-], so no name
 * can end the HTML comment, fake another key or mention anyone.
 */
function encodeKey(agent: string, session: string): string {
  return Buffer.from(JSON.stringify([agent, session]), "utf8").toString("base64url");
}

function decodeKey(key: string): { agent: string; session: string } | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(key, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string") return { agent: v[0], session: v[1] };
  } catch {
    // not ours
  }
  return null;
}

/** One checkbox line (the label is already escaped by the caller). */
export function formatControlCheckbox(c: ControlCheckbox, label: string): string {
  const target = CONTROLS.byName(c.action)?.target && c.target !== undefined ? ` ${c.target}` : "";
  return `- [${c.checked ? "x" : " "}] ${PREFIX}${c.action} ${encodeKey(c.agent, c.session)}${target} --> ${label}`;
}

/** Every control checkbox inside the body's dashboard section(s), in order. Lines outside the section are people's. */
export function parseControlCheckboxes(body: string): ControlCheckbox[] {
  const out: ControlCheckbox[] = [];
  let inside = false;
  for (const line of body.split(/\r?\n/)) {
    if (line.startsWith(DASHBOARD_START)) inside = true;
    else if (line.startsWith(DASHBOARD_END)) inside = false;
    if (!inside) continue;
    const m = boxLinePattern().exec(line);
    if (!m) continue;
    const who = decodeKey(m[3] as string);
    if (!who) continue;
    const action = m[2] as CheckboxAction;
    if (CONTROLS.byName(action)?.target && m[4] === undefined) continue;
    out.push({ action, ...who, ...(m[4] !== undefined ? { target: Number(m[4]) } : {}), checked: m[1] !== " " });
  }
  return out;
}

/**
 * Which rendering of the dashboard a body holds: a digest of its dashboard
 * section(s) with every control box unticked. People's ticks do not change it;
 * each bot write does (its "Updated" line). With the box, it keys a tick: the
 * same tick seen again (webhook redelivery, a replayed delivery, a poll that
 * re-reads the body, another replica) has the same key and runs once (docs/security.md).
 */
export function dashboardRenderKey(body: string): string {
  const lines: string[] = [];
  let inside = false;
  for (const line of body.split(/\r?\n/)) {
    if (line.startsWith(DASHBOARD_START)) inside = true;
    if (inside) lines.push(boxLinePattern().test(line) ? line.replace(/\[[xX]\]/, "[ ]") : line);
    if (line.startsWith(DASHBOARD_END)) inside = false;
  }
  return bodyHash(lines.join("\n")).slice(0, 32);
}

/**
 * A tick command's once-key: the edit it was made by (`editKey`, see bodyEditKey), the box (identity,
 * not position) and the state it asks for. The same edit seen again (a redelivery, a replayed delivery,
 * a poll that reads the body again, another replica) has the same key and runs once; a tick, an
 * untick and a tick again are three edits, three keys (issue 28.3).
 */
export function tickCommandKey(editKey: string, c: { action: ControlAction; agent: string; session: string; target?: number }): string {
  return `tick:${editKey}:${c.action}:${Buffer.from(JSON.stringify([c.agent, c.session]), "utf8").toString("base64url")}:${c.target ?? ""}`;
}

/**
 * The key of one edit of the body: the edit time (Forgejo's `updated_at`, whole seconds; the API
 * names no content version) and the body it left, so a tick and a later tick of the same box after an
 * untick differ. Two edits in one second that leave the same body are one key: the second is taken for
 * a redelivery of the first (docs/security.md).
 */
export function bodyEditKey(editedAt: string | null, after: string): string {
  return `${editedAt ?? "unknown-time"}:${bodyHash(after)}`;
}

/**
 * The control boxes of a body, as a body of their own (the dashboard markers around the box lines): what
 * the bot keeps in its store as the last body it saw, enough for checkboxCommands to tell what changed
 * since, at a fraction of the body's size. Empty when the body has no boxes.
 */
export function controlBoxesOf(body: string): string {
  const boxes = parseControlCheckboxes(body);
  if (!boxes.length) return "";
  return [DASHBOARD_START, ...boxes.map((c) => formatControlCheckbox(c, "")), DASHBOARD_END].join("\n");
}

/**
 * The commands a person's edit of the dashboard asks for: boxes whose state
 * differs from what the bot rendered (`before`). A box with an `untick` action
 * is a state (Pause: ticked = pause, unticked = unpause); the others act when ticked. Boxes are matched
 * by the key on their own line (agent, session, action, target), never by
 * position, so text people add elsewhere cannot shift one box onto another.
 */
export function checkboxCommands(before: string, after: string): { action: ControlAction; agent: string; session: string; target?: number }[] {
  const id = (c: ControlCheckbox) => `${c.action} ${JSON.stringify([c.agent, c.session])} ${c.target ?? ""}`;
  const was = new Map(parseControlCheckboxes(before).map((c) => [id(c), c.checked]));
  const out: { action: ControlAction; agent: string; session: string; target?: number }[] = [];
  for (const c of parseControlCheckboxes(after)) {
    const prev = was.get(id(c));
    if (prev === undefined || prev === c.checked) continue;
    const base = { agent: c.agent, session: c.session, ...(c.target !== undefined ? { target: c.target } : {}) };
    const box: ControlBox | null | undefined = CONTROLS.byName(c.action)?.box;
    const untick = box?.untick as ControlAction | undefined;
    if (c.checked) out.push({ action: c.action, ...base });
    else if (untick !== undefined) out.push({ action: untick, ...base });
  }
  return out;
}
