/**
 * What an accepted `[CONTROL]` comment does to its agent+session's controls (projection/derive-entry.ts
 * applies it; the desk checks it). A new action picks one of these; a new effect is new projection code.
 *
 * - `pause`: sets `paused` (a state: asking for it again records nothing); the agent is told to wait.
 * - `unpause`: clears `paused` (also a state).
 * - `hide`: hides the dashboard row until the agent's next trusted signal.
 * - `fence`: a pending directive under a new epoch (`Epoch:` required), lifted by the next trusted
 *   checkpoint; with `target`, it also goes back to that checkpoint (rewind).
 */
export type ControlEffect = "pause" | "unpause" | "hide" | "fence";

/**
 * The dashboard box of an action, if it has one. `name` is how people call the box ("Pause ticked");
 * `label` is its text. `untick`: the box is a state (ticked while the effect holds) and unticking it asks
 * for that action. An action with a `target` gets one box per recent checkpoint, `label` then prefixes it.
 */
export interface ControlBox {
  name: string;
  label: string;
  untick?: string;
}

/**
 * One control action: everything the reader, the writer, the slash commands, the dashboard, the control
 * desk, the projection, the API, the MCP tools, the docs and the Python client need to know about it.
 * A new action is one file in this folder plus its line in `CONTROL_ACTIONS` (control-actions.ts).
 */
export interface ControlActionSpec<A extends string = string> {
  /** The `Action:` header value, lower case. */
  action: A;
  /** One sentence for people (docs, CLI help). */
  summary: string;
  /** The `/checkpost <verb>` words that ask for it, the first the one the bot suggests. Lower case. */
  verbs: readonly string[];
  /** It names a checkpoint to go to (`Target:`, `Target Id:`): the slash command takes it, the desk checks it. */
  target: boolean;
  effect: ControlEffect;
  box: ControlBox | null;
  /**
   * What an agent told this directive must do (MCP tool descriptions, docs). Set on actions whose effect
   * is `pause` or `fence`: they are what `resume` and `save` report as `directive.kind`.
   */
  directive?: string;
}
