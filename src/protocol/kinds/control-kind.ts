import { InvalidComment } from "../comment-kind.ts";
import type { CommentKind } from "../comment-kind.ts";
import { formatControl } from "../format-comment.ts";
import { CONTROLS } from "../controls/control-actions.ts";
import { CONTROL_MARKER, CheckpointIdSchema, ControlActionSchema, ControlSchema, SignatureSchema } from "../schemas.ts";
import type { Control, ControlAction, ControlInput } from "../schemas.ts";
import { optionalInt, requireHeader } from "./header-values.ts";
import { missingFields } from "../controls/missing-fields.ts";

/** What `checkpost parse` prints for a control, after `"kind"`. */
export type ControlOutput = { agent: string; session: string; action: ControlAction; timestamp: string | null } & Omit<Control, "agent" | "session" | "action" | "timestamp" | "version">;

/**
 * `[CONTROL] <agent>`: a command a person gave and the bot accepted. Header
 * lines only, no JSON block, and never the text "[CHECKPOINT]", so the seed's
 * 1.0 reader (which looks for that text and a ```json block) returns None.
 */
export const controlKind: CommentKind<"control", Control, ControlInput, ControlOutput> = {
  kind: "control",
  marker: CONTROL_MARKER,
  label: "control",
  schema: ControlSchema,
  jsonSchema: { id: "Control", description: "A [CONTROL] comment's fields (checkpost's additive kind; 1.0 readers ignore it)." },
  format: formatControl,
  output({ agent, session, action, timestamp, version: _v, ...extra }) {
    return { agent, session, action, timestamp, ...extra };
  },
  entryOf: ({ agent, session }) => ({ agent, session }),
  headers: new Map([
    ["version", "version"],
    ["session", "session"],
    ["time", "time"],
    ["action", "action"],
    ["target", "target"],
    ["target id", "targetId"],
    ["epoch", "epoch"],
    ["by", "by"],
    ["reason", "reason"],
    ["signature", "signature"],
  ]),
  json: "none",
  read(agent, headers) {
    const version = headers.get("version") || "1.0";
    if (!/^1(\.\d+)*$/.test(version)) throw new InvalidComment(`unsupported protocol version "${version}" (this reader understands 1.x)`);
    const actionText = requireHeader(headers, "action", "Action");
    const action = ControlActionSchema.safeParse(actionText.toLowerCase());
    if (!action.success) throw new InvalidComment(`unknown "Action:" "${actionText.slice(0, 40)}" (one of ${CONTROLS.names.join(", ")})`);
    const c: Control = { version, agent, session: requireHeader(headers, "session", "Session"), action: action.data, timestamp: headers.get("time") || null };
    const target = optionalInt(headers, "target", "Target", 1);
    const epoch = optionalInt(headers, "epoch", "Epoch", 0);
    const targetId = headers.get("targetId");
    if (target !== undefined) c.target = target;
    if (targetId !== undefined) {
      if (!CheckpointIdSchema.safeParse(targetId).success) throw new InvalidComment(`"Target Id:" is malformed`);
      c.targetId = targetId;
    }
    if (epoch !== undefined) c.epoch = epoch;
    const by = headers.get("by");
    if (by) c.by = by;
    const reason = headers.get("reason");
    if (reason) c.reason = reason;
    const sig = headers.get("signature");
    if (sig !== undefined) {
      if (!SignatureSchema.safeParse(sig).success) throw new InvalidComment(`"Signature:" is malformed`);
      c.signature = sig;
    }
    const missing = missingFields(c);
    if (missing) throw new InvalidComment(`${c.action} needs ${missing === "target" ? `"Target:" and "Epoch:" lines` : `an "Epoch:" line`}`);
    return c;
  },
};
