import { CHECKPOINT_MARKER, CONTROL_MARKER, CheckpointInputSchema, ControlInputSchema, HEALTH_MARKER, HealthInputSchema, PROTOCOL_VERSION } from "./schemas.ts";
import type { CheckpointInput, ControlInput, HealthInput } from "./schemas.ts";
import { pythonJsonDumps } from "./python-json.ts";
import { ProtocolInputError } from "../errors.ts";
import type { z } from "zod";
import type { JsonObject } from "./json-value.ts";
import { missingFields } from "./controls/missing-fields.ts";

const FOOTER = "Automated by CleverAgents Bot Agent: ";

function validated<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "input";
    throw new ProtocolInputError(`cannot format ${what}: ${where} ${issue?.message ?? "is invalid"}`);
  }
  return r.data;
}

// zod's record() copies keys by assignment, so an own "__proto__" key (as
// JSON.parse makes it) would be dropped from its output: once validated, the
// caller's own data/metrics object is what gets serialised.

/**
 * Format a `[CHECKPOINT]` comment exactly as the seed's `format_checkpoint_comment`
 * writes it (with the closing fence its reader needs), plus the additive header
 * lines `Id:`, `Seq:`, `Epoch:` and `Signature:` after `Time:`.
 *
 * @example
 * formatCheckpoint({ agent: "implementation-worker", session: "s1", phase: "clone_complete",
 *   timestamp: "2026-11-29T10:00:00.500000Z", data: { branch_name: "feat/x" } })
 */
export function formatCheckpoint(input: CheckpointInput): string {
  const cp = { ...validated(CheckpointInputSchema, input, "checkpoint"), data: input.data };
  const extra = [
    cp.id !== undefined ? `Id: ${cp.id}\n` : "",
    cp.seq !== undefined ? `Seq: ${cp.seq}\n` : "",
    cp.epoch !== undefined ? `Epoch: ${cp.epoch}\n` : "",
    cp.signature !== undefined ? `Signature: ${cp.signature}\n` : "",
  ].join("");
  return (
    `${CHECKPOINT_MARKER} ${cp.agent}\n` +
    `Version: ${PROTOCOL_VERSION}\n` +
    `Phase: ${cp.phase}\n` +
    `Session: ${cp.session}\n` +
    `Time: ${cp.timestamp}\n` +
    extra +
    `\nState Data:\n\`\`\`json\n${pythonJsonDumps(cp.data, { indent: 2, sortKeys: true })}\n\`\`\`\n\n---\n\n${FOOTER}${cp.agent}`
  );
}

/**
 * Format a `[HEALTH]` comment exactly as the seed's `post_health_signal` writes it
 * (metrics with `indent=2`, not key-sorted, and the closing fence).
 */
export function formatHealth(input: HealthInput): string {
  const h = { ...validated(HealthInputSchema, input, "health signal"), metrics: input.metrics as JsonObject };
  return (
    `${HEALTH_MARKER} ${h.agent}\n` +
    `Session: ${h.session}\n` +
    `Time: ${h.timestamp}\n` +
    `Status: ${h.status}\n\n` +
    `Metrics:\n\`\`\`json\n${pythonJsonDumps(h.metrics, { indent: 2 })}\n\`\`\`\n\n` +
    `Next check: ${h.nextCheck}\n\n---\n\n${FOOTER}${h.agent}`
  );
}

/**
 * Format a `[CONTROL]` comment (checkpost's additive kind): header lines and a
 * footer, no JSON block. Refuses any value holding "[CHECKPOINT]", the text
 * the seed's reader keys on, so a 1.0 reader can never take it for a checkpoint.
 *
 * @example formatControl({ agent: "implementation-worker", session: "s1", action: "pause", by: "alice", timestamp: "2026-11-29T10:00:00Z" })
 */
export function formatControl(input: ControlInput): string {
  const c = validated(ControlInputSchema, input, "control");
  const missing = missingFields(c);
  if (missing) throw new ProtocolInputError(`cannot format control: ${c.action} needs ${missing === "target" ? "target and epoch" : "epoch"}`);
  const lines = [
    `${CONTROL_MARKER} ${c.agent}`,
    `Version: ${PROTOCOL_VERSION}`,
    `Session: ${c.session}`,
    `Time: ${c.timestamp}`,
    `Action: ${c.action}`,
    c.target !== undefined ? `Target: ${c.target}` : "",
    c.targetId !== undefined ? `Target Id: ${c.targetId}` : "",
    c.epoch !== undefined ? `Epoch: ${c.epoch}` : "",
    c.by !== undefined ? `By: ${c.by}` : "",
    c.reason !== undefined ? `Reason: ${c.reason}` : "",
    c.signature !== undefined ? `Signature: ${c.signature}` : "",
  ].filter(Boolean);
  const body = `${lines.join("\n")}\n\n---\n\nRecorded by checkpost: a control command (1.0 readers ignore this comment)`;
  if (body.includes(CHECKPOINT_MARKER)) throw new ProtocolInputError(`cannot format control: no value may contain "${CHECKPOINT_MARKER}"`);
  return body;
}
