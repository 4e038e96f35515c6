import * as z from "zod";
import { InvalidComment } from "../comment-kind.ts";
import type { CommentKind } from "../comment-kind.ts";
import { lazySchema } from "../lazy-schema.ts";
import { AgentNameSchema, CHECKPOINT_MARKER, PROTOCOL_VERSION, SessionIdSchema } from "../schemas.ts";
import { ProtocolInputError } from "../../errors.ts";
import { optionalInt, requireHeader } from "./header-values.ts";

/** Additive kind (1.0 readers ignore it): a snapshot of an agent's native state (docs/snapshots.md). */
export const SNAPSHOT_MARKER = "[SNAPSHOT]";

/** Where a manifest is: the comment holding it as an attachment, and the attachment's name. */
const ManifestRef = /^(\d{1,16})\/(manifest-[0-9a-f]{32}\.json)$/;

export const SnapshotSchema = lazySchema(() =>
  z.object({
    version: z.string(),
    agent: AgentNameSchema,
    session: SessionIdSchema,
    timestamp: z.string().nullable(),
    epoch: z.number().int().min(0),
    /** The comment whose attachment is the manifest. */
    manifestComment: z.number().int().positive(),
    /** The manifest attachment's name. */
    manifest: z.string().regex(/^manifest-[0-9a-f]{32}\.json$/),
    files: z.number().int().min(0),
    bytes: z.number().int().min(0),
    /** Bytes this save uploaded (the rest was stored already). */
    uploaded: z.number().int().min(0),
    /** Key id the manifest and new chunks were sealed with, or null (plain). */
    sealed: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .nullable(),
  }),
);
export type Snapshot = z.infer<typeof SnapshotSchema>;
export type SnapshotInput = Omit<Snapshot, "version">;

/** Write a `[SNAPSHOT]` comment: header lines only, no JSON block, never the text "[CHECKPOINT]". */
export function formatSnapshot(input: SnapshotInput): string {
  const r = SnapshotSchema.safeParse({ ...input, version: PROTOCOL_VERSION });
  if (!r.success) throw new ProtocolInputError(`cannot format snapshot: ${r.error.issues[0]?.path.join(".") || "input"} ${r.error.issues[0]?.message ?? "is invalid"}`);
  const s = r.data;
  const body = [
    `${SNAPSHOT_MARKER} ${s.agent}`,
    `Version: ${PROTOCOL_VERSION}`,
    `Session: ${s.session}`,
    `Time: ${s.timestamp ?? ""}`,
    `Epoch: ${s.epoch}`,
    `Manifest: ${s.manifestComment}/${s.manifest}`,
    `Files: ${s.files}`,
    `Bytes: ${s.bytes}`,
    `Uploaded: ${s.uploaded}`,
    `Sealed: ${s.sealed ?? "no"}`,
    "",
    "---",
    "",
    "Recorded by checkpost: a snapshot of the agent's files; restore with `checkpost snapshot restore` (1.0 readers ignore this comment)",
  ].join("\n");
  if (body.includes(CHECKPOINT_MARKER)) throw new ProtocolInputError(`cannot format snapshot: no value may contain "${CHECKPOINT_MARKER}"`);
  return body;
}

const int = (h: ReadonlyMap<string, string>, key: string, label: string) => {
  const v = optionalInt(h, key, label, 0);
  if (v === undefined) throw new InvalidComment(`missing "${label}:" line`);
  return v;
};

/** `[SNAPSHOT] <agent>`: names the manifest of a snapshot (the files are attachments of other comments). */
export const snapshotKind: CommentKind<"snapshot", Snapshot, SnapshotInput, Omit<Snapshot, "version">> = {
  kind: "snapshot",
  marker: SNAPSHOT_MARKER,
  label: "snapshot",
  schema: SnapshotSchema,
  jsonSchema: { id: "Snapshot", description: "A [SNAPSHOT] comment's fields (checkpost's additive kind; 1.0 readers ignore it)." },
  format: formatSnapshot,
  output: ({ version: _v, ...rest }) => rest,
  entryOf: ({ agent, session }) => ({ agent, session }),
  headers: new Map([
    ["version", "version"],
    ["session", "session"],
    ["time", "time"],
    ["epoch", "epoch"],
    ["manifest", "manifest"],
    ["files", "files"],
    ["bytes", "bytes"],
    ["uploaded", "uploaded"],
    ["sealed", "sealed"],
  ]),
  json: "none",
  read(agent, headers) {
    const version = headers.get("version") || "1.0";
    if (!/^1(\.\d+)*$/.test(version)) throw new InvalidComment(`unsupported protocol version "${version}" (this reader understands 1.x)`);
    const ref = ManifestRef.exec(requireHeader(headers, "manifest", "Manifest"));
    if (!ref) throw new InvalidComment(`"Manifest:" must be <comment id>/manifest-<32 hex>.json`);
    const sealed = requireHeader(headers, "sealed", "Sealed");
    if (sealed !== "no" && !/^[0-9a-f]{16}$/.test(sealed)) throw new InvalidComment(`"Sealed:" must be "no" or a 16-hex-digit key id`);
    return {
      version,
      agent,
      session: requireHeader(headers, "session", "Session"),
      timestamp: headers.get("time") || null,
      epoch: int(headers, "epoch", "Epoch"),
      manifestComment: Number(ref[1]),
      manifest: ref[2] as string,
      files: int(headers, "files", "Files"),
      bytes: int(headers, "bytes", "Bytes"),
      uploaded: int(headers, "uploaded", "Uploaded"),
      sealed: sealed === "no" ? null : sealed,
    };
  },
  // The dashboard and `checkpost status` show the newest one per agent+session (entry.kinds.snapshot).
  project: ({ files, bytes, sealed, epoch, uploaded }) => ({ files, bytes, sealed, epoch, uploaded }),
};
