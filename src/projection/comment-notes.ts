import type { CommentRecord } from "./comment-event.ts";
import { detachString } from "./projection-state.ts";
import type { Note, ProjectionState } from "./projection-state.ts";
import { parseWith, toStoredRecord } from "./stored-comment.ts";
import type { StoredRecord, Version } from "./stored-comment.ts";

/**
 * Untrusted authors never drive output: their protocol comments (and any
 * comment over the reader's size limit) are counted per author and not
 * parsed or stored. A trusted oversized comment is one anomaly; its body is
 * not parsed either. The length test is cheap and sound: UTF-8 bytes >= UTF-16 units.
 */
export const noteFor = (s: ProjectionState, c: CommentRecord): Note | null => {
  const trusted = s.ctx.trustedAuthors.has(c.author.toLowerCase());
  const oversized = c.body.length > s.maxBodyBytes;
  if (!trusted && (oversized || parseWith(s.ctx, c.body).kind !== "none")) return { kind: "untrusted", author: c.author.toLowerCase() };
  if (!oversized) return null;
  const mib = (c.body.length / 1024 / 1024).toFixed(1);
  return {
    kind: "oversized",
    anomaly: {
      kind: "oversized",
      commentId: c.id,
      agent: null,
      session: null,
      detail: `comment of at least ${mib} MiB is over the reader's ${s.maxBodyBytes}-byte limit; skipped`,
      ...(c.htmlUrl !== undefined ? { htmlUrl: detachString(c.htmlUrl) } : {}),
    },
  };
};
export const addNote = (s: ProjectionState, n: Note | null, c: CommentRecord) => {
  if (n === null) return;
  if (n.kind === "oversized") {
    s.unkeyed.set(n.anomaly.commentId, n.anomaly);
    return;
  }
  let t = s.untrustedAuthors.get(n.author);
  if (!t) s.untrustedAuthors.set(n.author, (t = { ids: new Map(), oversized: new Set() }));
  t.ids.set(c.id, { login: detachString(c.author), htmlUrl: c.htmlUrl === undefined ? undefined : detachString(c.htmlUrl) });
  if (c.body.length > s.maxBodyBytes) t.oversized.add(c.id);
};
export const dropNote = (s: ProjectionState, n: Note | null, id: number) => {
  if (n === null) return;
  if (n.kind === "oversized") {
    s.unkeyed.delete(id);
    return;
  }
  const t = s.untrustedAuthors.get(n.author);
  if (!t) return;
  t.ids.delete(id);
  t.oversized.delete(id);
  if (t.ids.size === 0) s.untrustedAuthors.delete(n.author);
};
/** Held record and note of one comment version. */
export const store = (s: ProjectionState, c: CommentRecord, version: Version): { record: StoredRecord | null; note: Note | null } => {
  const note = noteFor(s, c);
  return { note, record: note ? null : toStoredRecord(c, version, s.ctx) };
};
