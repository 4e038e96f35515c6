import type { AgentEntry, CommentEvent, Projection } from "../projection/index.ts";
import { entryKey } from "../projection/index.ts";
import { isProtocolBody } from "../bot-state/index.ts";
import type { ControlDesk } from "./control-desk.ts";
import type { TrackerContext } from "./tracker-context.ts";

/** Comments of this batch that may undo a control: edits of the bot's own [CONTROL] records, and deletes. */
export function controlTouches(selfLogin: string, events: readonly CommentEvent[]): Map<number, string> {
  const out = new Map<number, string>();
  const self = selfLogin.toLowerCase();
  for (const e of events) {
    if (e.type === "delete") out.set(e.commentId, "deleted");
    // Any version of the bot's own protocol comment (an edit in the second it was posted keeps updated_at): only a lost effect is restored.
    else if (e.comment.author.toLowerCase() === self && isProtocolBody(e.comment.body)) out.set(e.comment.id, `edited at ${e.comment.updatedAt}`);
  }
  return out;
}

/** The entries that have controls, by agent+session. */
export function controlStates(projection: Projection): Map<string, AgentEntry> {
  const m = new Map<string, AgentEntry>();
  for (const e of projection.snapshot().entries) if (e.control) m.set(entryKey(e.agent, e.session), e);
  return m;
}

/**
 * Control records are immutable in effect (issue 19.7): when an edit or delete of a [CONTROL]
 * comment changed an entry's controls, the writer records the lost effect again as a new
 * [CONTROL] (the edited one stays ignored and listed as an anomaly), so the bot and every cold
 * reader (which follow the newest records) agree that the state did not change.
 */
export async function restoreControls(
  t: Pick<TrackerContext, "o" | "projection">,
  controls: ControlDesk,
  before: Map<string, AgentEntry>,
  touched: Map<number, string>,
  events: readonly CommentEvent[],
): Promise<void> {
  if (!t.o.lease.current()) return; // the writer restores; the others fold its record
  const after = controlStates(t.projection);
  const fresh = new Set(events.flatMap((e) => (e.type === "upsert" ? [e.comment.id] : [])));
  for (const [k, b] of before) {
    const a = after.get(k)?.control;
    const bc = b.control!;
    const restore = async (ref: NonNullable<typeof bc.paused>, action: typeof ref.action) => {
      const why = touched.get(ref.commentId) ?? "undone";
      await controls.restore(b.agent, b.session, { ...ref, action }, `restores [CONTROL] comment ${ref.commentId} (${why})`, `restore:${ref.commentId}:${why}`);
    };
    if (bc.paused && touched.has(bc.paused.commentId) && a?.paused?.commentId !== bc.paused.commentId) await restore(bc.paused, "pause");
    if (bc.pending && touched.has(bc.pending.commentId) && a?.pending?.commentId !== bc.pending.commentId) await restore(bc.pending, bc.pending.action);
    if (bc.hidden && touched.has(bc.hidden.commentId) && a?.hidden?.commentId !== bc.hidden.commentId) await restore(bc.hidden, "hide");
  }
  // An older pause came back: an unpause record was edited or deleted.
  for (const [k, e] of after) {
    const p = e.control?.paused;
    if (!p || fresh.has(p.commentId) || before.get(k)?.control?.paused) continue;
    const gone = [...touched.keys()].find((id) => id > p.commentId);
    if (gone === undefined) continue;
    const why = touched.get(gone) as string;
    await controls.restore(e.agent, e.session, { action: "unpause", by: null }, `restores the unpause of [CONTROL] comment ${gone} (${why})`, `restore:${gone}:${why}`);
  }
}
