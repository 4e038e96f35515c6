import type { ControlActionSpec, ControlBox } from "./control-action.ts";

/** A list of control actions with what the reader, the slash commands, the boxes and the desk look up in it. */
export interface ControlActionRegistry<As extends readonly ControlActionSpec[] = readonly ControlActionSpec[]> {
  readonly actions: As;
  /** The `Action:` values, in registry order. */
  readonly names: readonly As[number]["action"][];
  byName(action: string): As[number] | undefined;
  /** The action a `/checkpost <verb>` asks for (verbs are matched lower case). */
  byVerb(verb: string): As[number] | undefined;
  /** Every slash verb, each action's first one first (for "use pause, resume, …"). */
  readonly verbs: readonly string[];
  /** Actions with a box of their own in each row's controls (not per checkpoint), in registry order. */
  readonly rowBoxes: readonly (As[number] & { box: ControlBox })[];
  /** Actions whose box is one per recent checkpoint (they take a target). */
  readonly checkpointBoxes: readonly (As[number] & { box: ControlBox })[];
  /** Every action that has a box, by the name its box line carries. */
  readonly boxed: readonly As[number]["action"][];
  /** The actions `resume`/`save` report as `directive.kind`, in registry order. */
  readonly directives: readonly As[number]["action"][];
  /** The action whose box unticked asks for `action` (Pause for unpause), or undefined. */
  untickOf(action: string): (As[number] & { box: ControlBox }) | undefined;
}

/**
 * Check a list of actions and index it. Throws on a list that would make two things mean one (a name or a
 * verb twice), on an untick naming no action, and on a directive text where the effect gives none.
 *
 * @example controlActionRegistry([pause, unpause]).byVerb("resume")?.action // "unpause"
 */
export function controlActionRegistry<const As extends readonly ControlActionSpec[]>(actions: As): ControlActionRegistry<As> {
  type A = As[number];
  const byName = new Map<string, A>();
  const byVerb = new Map<string, A>();
  for (const a of actions) {
    if (!/^[a-z][a-z-]{0,31}$/.test(a.action)) throw new Error(`control action "${a.action}": a name is 1–32 lower-case letters or "-"`);
    if (byName.has(a.action)) throw new Error(`two control actions named "${a.action}"`);
    byName.set(a.action, a);
    if (!a.verbs.length) throw new Error(`control action "${a.action}" has no slash verb`);
    for (const v of a.verbs) {
      if (!/^[a-z][a-z-]{0,31}$/.test(v)) throw new Error(`control action "${a.action}": verb "${v}" is not 1–32 lower-case letters or "-"`);
      if (byVerb.has(v)) throw new Error(`slash verb "${v}" names two control actions`);
      byVerb.set(v, a);
    }
    const directs = a.effect === "pause" || a.effect === "fence";
    if (directs !== (a.directive !== undefined)) throw new Error(`control action "${a.action}": a "${a.effect}" effect ${directs ? "needs" : "has no"} directive text`);
    if (a.target && a.effect !== "fence") throw new Error(`control action "${a.action}": only a "fence" effect can take a target`);
  }
  for (const a of actions)
    if (a.box?.untick !== undefined) {
      const off = byName.get(a.box.untick);
      if (off?.effect !== "unpause" || a.effect !== "pause")
        throw new Error(`control action "${a.action}": its box's untick "${a.box.untick}" must name an unpause-effect action, on a pause-effect one`);
    }
  const boxed = actions.filter((a): a is A & { box: ControlBox } => a.box !== null);
  return {
    actions,
    names: actions.map((a) => a.action),
    byName: (action) => byName.get(action),
    byVerb: (verb) => byVerb.get(verb.toLowerCase()),
    verbs: [...actions.map((a) => a.verbs[0] as string), ...actions.flatMap((a) => a.verbs.slice(1))],
    rowBoxes: boxed.filter((a) => !a.target),
    checkpointBoxes: boxed.filter((a) => a.target),
    boxed: boxed.map((a) => a.action),
    directives: actions.filter((a) => a.directive !== undefined).map((a) => a.action),
    untickOf: (action) => boxed.find((a) => a.box.untick === action),
  };
}
