import { createHmac, timingSafeEqual } from "node:crypto";
import { pythonJsonDumps } from "./python-json.ts";
import type { Control } from "./schemas.ts";

type Signable = Omit<Control, "signature" | "version"> & { version?: string };

function canonicalControl(c: Signable): string {
  return pythonJsonDumps(
    ["checkpost-control-signature-v1", c.version ?? "1.0", c.agent, c.session, c.action, c.timestamp, c.target ?? null, c.targetId ?? null, c.epoch ?? null, c.by ?? null, c.reason ?? null],
    { sortKeys: true },
  );
}

/** `hmac-sha256=<hex>` over every field of a `[CONTROL]` comment (a domain apart from checkpoints'). */
export function signControl(c: Signable, key: string): string {
  return `hmac-sha256=${createHmac("sha256", key).update(canonicalControl(c), "utf8").digest("hex")}`;
}

/** Constant-time check of a control's `Signature:`. */
export function verifyControlSignature(c: Control, key: string): boolean {
  if (!c.signature) return false;
  const expected = Buffer.from(signControl(c, key));
  const actual = Buffer.from(c.signature);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
