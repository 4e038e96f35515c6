import { PROTOCOL_KINDS, parseComment, verifyCheckpointSignature, verifyControlSignature } from "../protocol/index.ts";
import type { Checkpoint, Control, Health, JsonValue, KindRegistry, ParsedComment, ReaderLimits } from "../protocol/index.ts";
import type { CommentRecord } from "./comment-event.ts";
import { entryKey } from "./entry-key.ts";

/** Which version of a comment is held: the newest `updatedAt`, ties broken by the larger body digest. */
export interface Version {
  updatedMs: number;
  hash: string;
  /** More than one distinct body has been seen for this comment id (an edit, whatever the timestamps say). */
  multi: boolean;
}

/** > 0 when `a` is the newer version. Deterministic whatever the arrival order. */
export function compareVersions(a: Pick<Version, "updatedMs" | "hash">, b: Pick<Version, "updatedMs" | "hash">): number {
  if (a.updatedMs !== b.updatedMs) return a.updatedMs - b.updatedMs;
  return a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
}

/** `ok`/`bad`/`unsigned` when the policy has a key, `n/a` otherwise. Computed once per version. */
export type SignatureStatus = "ok" | "bad" | "unsigned" | "n/a";

interface RecordBase {
  commentId: number;
  /** Entry key, or null for an unreadable comment that does not name agent and session. */
  key: string | null;
  agent: string | null;
  session: string | null;
  createdMs: number;
  htmlUrl: string | undefined;
  trustedAuthor: boolean;
  /** `updatedAt` differs from `createdAt`. */
  editedByTime: boolean;
  version: Version;
}

/**
 * A checkpoint as held: its state kept as compact JSON text, parsed again only
 * for the entry's newest checkpoint. Parsed JSON costs several times its text
 * in V8 objects, and only one checkpoint per agent+session is ever shown or
 * resumed from (50,000 comments: ~120 MiB of heap held as objects).
 */
export type CompactCheckpoint = Omit<Checkpoint, "data"> & { dataJson: string };
/** A health signal as held: metrics as JSON text, like checkpoint state. */
export type StoredHealth = Omit<Health, "metrics"> & { metricsJson: string };

export type StoredRecord =
  | (RecordBase & { kind: "checkpoint"; key: string; agent: string; session: string; checkpoint: CompactCheckpoint; sig: SignatureStatus })
  | (RecordBase & { kind: "health"; key: string; agent: string; session: string; health: StoredHealth })
  | (RecordBase & { kind: "control"; key: string; agent: string; session: string; control: Control; sig: SignatureStatus })
  /** A kind of the registry that has no rules in the projection but a `project` hook (see CommentKind). */
  | (RecordBase & { kind: "extension"; key: string; agent: string; session: string; name: string; value: JsonValue })
  /** `marker`: the kind's name (a kind outside the protocol's may be named too). */
  | (RecordBase & { kind: "invalid"; error: string; marker: string });

export interface RecordContext {
  trustedAuthors: ReadonlySet<string>;
  signingKey?: string;
  readerLimits?: Partial<ReaderLimits>;
  /** The kinds to read (default the protocol's). */
  kinds?: KindRegistry;
}

/**
 * parseComment under the context's kinds, typed as the protocol's: a kind of one's own is told apart
 * by its name (OWN_RULES) before any of its fields is read.
 */
export function parseWith(ctx: Pick<RecordContext, "readerLimits" | "kinds">, body: string): ParsedComment {
  return parseComment(body, ctx.readerLimits, ctx.kinds) as ParsedComment;
}

/** The kinds the projection has rules of its own for (derive-entry.ts); any other goes through its `project` hook. */
const OWN_RULES: ReadonlySet<string> = new Set(["checkpoint", "health", "control"]);

/**
 * A copy that shares no storage with the comment body. V8 represents a
 * substring of 13+ characters as a slice that keeps its whole parent alive, so
 * an agent name cut from a 2 KB body would hold those 2 KB for as long as the
 * projection holds the record (50,000 comments: ~100 MiB of heap).
 */
function detach<T extends string | null | undefined>(s: T): T {
  return (typeof s === "string" && s.length >= 13 ? Buffer.from(s, "utf8").toString("utf8") : s) as T;
}

/** Best effort: the `Session:` line of a comment the reader rejected, so it can be counted against its entry. */
function sniffSession(body: string): string | null {
  const m = /^[ \t]*Session:[ \t]*(\S[^\r\n]{0,255}?)[ \t]*\r?$/m.exec(body.slice(0, 8192));
  return m ? (m[1] as string) : null;
}

/**
 * Read one comment version into what derivation needs, or null for a comment
 * that is not the protocol's (its body is not kept anywhere).
 */
export function toStoredRecord(c: CommentRecord, version: Version, ctx: RecordContext): StoredRecord | null {
  const parsed = parseWith(ctx, c.body);
  if (parsed.kind === "none") return null;
  const createdMs = Date.parse(c.createdAt);
  const trustedAuthor = ctx.trustedAuthors.has(c.author.toLowerCase());
  const editedByTime = version.updatedMs !== createdMs;
  const commentId = c.id;
  // Strings from JSON.parse may be slices of the whole HTTP response: keep a copy, not the response.
  const htmlUrl = detach(c.htmlUrl);
  if (parsed.kind === "invalid") {
    const session = detach(parsed.agent !== null ? sniffSession(c.body) : null);
    const agent = detach(parsed.agent);
    const key = agent !== null && session !== null ? entryKey(agent, session) : null;
    return { kind: "invalid", commentId, key, agent, session, createdMs, htmlUrl, trustedAuthor, editedByTime, version, error: detach(parsed.error), marker: parsed.marker };
  }
  if (!OWN_RULES.has(parsed.kind)) {
    const kind = (ctx.kinds ?? PROTOCOL_KINDS).byName(parsed.kind);
    const value = (parsed as Record<string, unknown>)[parsed.kind];
    if (!kind?.project) return null; // read, not projected
    const { agent, session } = kind.entryOf(value);
    const at = { commentId, createdMs, htmlUrl, trustedAuthor, editedByTime, version };
    return { kind: "extension", name: kind.kind, key: entryKey(agent, session), agent: detach(agent), session: detach(session), value: kind.project(value), ...at };
  }
  if (parsed.kind === "health") {
    const { metrics, ...m } = parsed.health;
    const h = { ...m, agent: detach(m.agent), session: detach(m.session), timestamp: detach(m.timestamp), status: detach(m.status), nextCheck: detach(m.nextCheck) };
    const health: StoredHealth = { ...h, metricsJson: JSON.stringify(metrics) };
    return { kind: "health", commentId, key: entryKey(h.agent, h.session), agent: h.agent, session: h.session, createdMs, htmlUrl, trustedAuthor, editedByTime, version, health };
  }
  if (parsed.kind === "control") {
    const k = parsed.control;
    const control: Control = { ...k, agent: detach(k.agent), session: detach(k.session), timestamp: detach(k.timestamp), version: detach(k.version) };
    for (const f of ["targetId", "by", "reason", "signature"] as const) if (k[f] !== undefined) control[f] = detach(k[f]);
    const sig: SignatureStatus = ctx.signingKey === undefined ? "n/a" : control.signature === undefined ? "unsigned" : verifyControlSignature(control, ctx.signingKey) ? "ok" : "bad";
    return {
      kind: "control",
      commentId,
      key: entryKey(control.agent, control.session),
      agent: control.agent,
      session: control.session,
      createdMs,
      htmlUrl,
      trustedAuthor,
      editedByTime,
      version,
      control,
      sig,
    };
  }
  if (parsed.kind !== "checkpoint") return null; // unreachable: every other kind returned above
  const p = parsed.checkpoint;
  const cp = {
    ...p,
    agent: detach(p.agent),
    session: detach(p.session),
    phase: detach(p.phase),
    timestamp: detach(p.timestamp),
    version: detach(p.version),
    id: detach(p.id),
    signature: detach(p.signature),
  };
  if (cp.id === undefined) delete cp.id;
  if (cp.signature === undefined) delete cp.signature;
  const sig: SignatureStatus = ctx.signingKey === undefined ? "n/a" : cp.signature === undefined ? "unsigned" : verifyCheckpointSignature(cp, ctx.signingKey) ? "ok" : "bad";
  const { data, ...meta } = cp;
  const checkpoint: CompactCheckpoint = { ...meta, dataJson: JSON.stringify(data) };
  return { kind: "checkpoint", commentId, key: entryKey(cp.agent, cp.session), agent: cp.agent, session: cp.session, createdMs, htmlUrl, trustedAuthor, editedByTime, version, checkpoint, sig };
}
