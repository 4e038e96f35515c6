import { createHmac } from "node:crypto";
import { ConfigError } from "../../errors.ts";

/** A state key as a snapshot uses it: its id (named in every manifest and chunk) and the two keys derived from it. */
export interface StateKey {
  /** 16 hex digits, a keyed digest of the key (never the key itself). */
  id: string;
  /** AES-256-GCM key of contents and manifests. */
  enc: Buffer;
  /** HMAC key of chunk names: content addresses that do not reveal the content's sha256. */
  name: Buffer;
}

const derive = (key: Buffer, label: string) => createHmac("sha256", key).update(`checkpost snapshot ${label} v1`).digest();

/**
 * CHECKPOST_STATE_KEY: exactly 32 bytes, written as 64 hex digits or as base64 (`openssl rand -base64 32`).
 * `setting` names the variable in the error.
 */
export function parseStateKey(text: string, setting = "CHECKPOST_STATE_KEY"): StateKey {
  const t = text.trim();
  const raw = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : /^[A-Za-z0-9+/_-]{43}=?$/.test(t) ? Buffer.from(t, "base64") : null;
  if (raw?.length !== 32) throw new ConfigError(`${setting} must be 32 bytes, as 64 hex digits or base64 (make one with: openssl rand -base64 32)`);
  return { id: derive(raw, "key id").subarray(0, 8).toString("hex"), enc: derive(raw, "enc"), name: derive(raw, "name") };
}
