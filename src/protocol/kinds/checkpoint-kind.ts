import { InvalidComment } from "../comment-kind.ts";
import type { CommentKind } from "../comment-kind.ts";
import { formatCheckpoint } from "../format-comment.ts";
import type { JsonValue } from "../json-value.ts";
import { CHECKPOINT_MARKER, CheckpointIdSchema, CheckpointSchema, SignatureSchema } from "../schemas.ts";
import type { Checkpoint, CheckpointInput } from "../schemas.ts";
import { optionalInt, requireHeader } from "./header-values.ts";

/** What `checkpost parse` prints for a checkpoint, after `"kind"`. */
export type CheckpointOutput = { agent: string; session: string; phase: string; version: string; timestamp: string | null; data: JsonValue } & {
  id?: string;
  seq?: number;
  epoch?: number;
  signature?: string;
};

/** `[CHECKPOINT] <agent>`: the seed's checkpoint, plus checkpost's additive `Id:`, `Seq:`, `Epoch:`, `Signature:`. */
export const checkpointKind: CommentKind<"checkpoint", Checkpoint, CheckpointInput, CheckpointOutput> = {
  kind: "checkpoint",
  marker: CHECKPOINT_MARKER,
  label: "checkpoint",
  schema: CheckpointSchema,
  jsonSchema: { id: "Checkpoint", description: "A [CHECKPOINT] comment's fields (protocol 1.0 plus checkpost's additive Id/Seq/Epoch/Signature)." },
  format: formatCheckpoint,
  output({ agent, session, phase, version, timestamp, data, ...extra }) {
    return { agent, session, phase, version, timestamp, data, ...extra };
  },
  entryOf: ({ agent, session }) => ({ agent, session }),
  headers: new Map([
    ["version", "version"],
    ["phase", "phase"],
    ["session", "session"],
    ["time", "time"],
    ["id", "id"],
    ["seq", "seq"],
    ["epoch", "epoch"],
    ["signature", "signature"],
  ]),
  json: "required",
  read(agent, headers, data) {
    // A checkpoint without Version is read as 1.0 (the seed never omits it, people editing by hand might).
    const version = headers.get("version") || "1.0";
    if (!/^1(\.\d+)*$/.test(version)) throw new InvalidComment(`unsupported protocol version "${version}" (this reader understands 1.x)`);
    const cp: Checkpoint = {
      version,
      agent,
      session: requireHeader(headers, "session", "Session"),
      phase: requireHeader(headers, "phase", "Phase"),
      timestamp: headers.get("time") || null,
      data: data ?? null,
    };
    const id = headers.get("id");
    if (id !== undefined) {
      if (!CheckpointIdSchema.safeParse(id).success) throw new InvalidComment(`"Id:" is malformed: "${id.slice(0, 40)}"`);
      cp.id = id;
    }
    const seq = optionalInt(headers, "seq", "Seq", 1);
    if (seq !== undefined) cp.seq = seq;
    const epoch = optionalInt(headers, "epoch", "Epoch", 0);
    if (epoch !== undefined) cp.epoch = epoch;
    const sig = headers.get("signature");
    if (sig !== undefined) {
      if (!SignatureSchema.safeParse(sig).success) throw new InvalidComment(`"Signature:" is malformed`);
      cp.signature = sig;
    }
    return cp;
  },
};
