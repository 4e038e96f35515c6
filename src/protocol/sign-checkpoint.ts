import { createHmac, timingSafeEqual } from "node:crypto";
import { pythonJsonDumps } from "./python-json.ts";
import type { Checkpoint } from "./schemas.ts";

type Signable = Pick<Checkpoint, "agent" | "session" | "phase" | "timestamp" | "data" | "id" | "seq" | "epoch"> & { version?: string };

/**
 * The canonical form a signature covers: every field a reader acts on, in a
 * fixed order, serialised with sorted keys and no whitespace choices left open.
 * The version is fixed to "1.0" as the writer writes it.
 */
export function canonicalCheckpoint(cp: Signable): string {
  return pythonJsonDumps(["checkpost-signature-v1", cp.version ?? "1.0", cp.agent, cp.session, cp.phase, cp.timestamp, cp.id ?? null, cp.seq ?? null, cp.epoch ?? null, cp.data], { sortKeys: true });
}

/** `hmac-sha256=<hex>` over the canonical form. */
export function signCheckpoint(cp: Signable, key: string): string {
  return `hmac-sha256=${createHmac("sha256", key).update(canonicalCheckpoint(cp), "utf8").digest("hex")}`;
}

/** Constant-time check of a checkpoint's `Signature:` against the key. */
export function verifyCheckpointSignature(cp: Checkpoint, key: string): boolean {
  if (!cp.signature) return false;
  const expected = Buffer.from(signCheckpoint(cp, key));
  const actual = Buffer.from(cp.signature);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
