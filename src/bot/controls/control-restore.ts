import type { AgentEntry, CommentEvent, Projection } from "../../projection/index.ts";
import { entryKey } from "../../projection/index.ts";
import { isProtocolBody } from "../../bot-state/index.ts";
import type { StoredComment } from "../../bot-state/index.ts";
import { bodyHash } from "../../projection/body-hash.ts";
import type { ControlDesk } from "./control-desk.ts";
import type { IssueLease } from "../replicas/issue-lease.ts";

/**
 * Comments of this batch that may undo a control: deletes, and the bot's own protocol records whose
 * stored version differs from the one given. A record listed again (a poll's boundary second, a
 * reconcile, a redelivery) is the version the store holds and is never touched. The reason says
 * what changed: the body (an edit), or only the updated time (Forgejo moves it when a file is
 * attached to the comment). The projection, like every cold reader, sets a record aside when its
 * updated time moved, so the effect is lost either way and restoreControls records it again; with
 * the body unchanged that is not counted as an edit (docs/security.md, round three).
 */
export async function controlTouches(
  selfLogin: string,
  events: readonly CommentEvent[],
  stored: (ids: readonly number[]) => Promise<readonly Pick<StoredComment, "id" | "hash" | "updatedAt" | "deleted">[]>,
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const self = selfLogin.toLowerCase();
  const own = new Map<number, { body: string; updatedAt: string }>();
  for (const e of events) {
    if (e.type === "delete") out.set(e.commentId, "deleted");
    else if (e.comment.author.toLowerCase() === self && isProtocolBody(e.comment.body)) own.set(e.comment.id, e.comment);
  }
  if (!own.size) return out;
  for (const row of await stored([...own.keys()])) {
    const seen = own.get(row.id);
    // First sight (the bot's own new record) or already gone: nothing recorded to compare with.
    if (!seen || row.deleted) continue;
    if (row.hash !== bodyHash(seen.body)) out.set(row.id, `edited at ${seen.updatedAt}`);
    else if (Date.parse(row.updatedAt) < Date.parse(seen.updatedAt)) out.set(row.id, `updated time moved to ${seen.updatedAt}, body unchanged`);
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
  t: { lease: Pick<IssueLease, "current">; projection: Projection },
  controls: Pick<ControlDesk, "restore">,
  before: Map<string, AgentEntry>,
  touched: Map<number, string>,
  /** The batch's events the store took as new (ApplyResult.changed), not every event given. */
  storedAsNew: readonly CommentEvent[],
): Promise<void> {
  if (!t.lease.current()) return; // the writer restores; the others fold its record
  const after = controlStates(t.projection);
  // What the store took as new (a first sight, a newer version): a pause listed again with the batch is not new.
  const fresh = new Set(storedAsNew.flatMap((e) => (e.type === "upsert" ? [e.comment.id] : [])));
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
