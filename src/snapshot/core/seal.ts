import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import type { StateKey } from "./state-key.ts";
import { SnapshotKeyError } from "./snapshot-errors.ts";

/** "CPS1", the key id (8 bytes), the IV (12), the GCM tag (16), then the ciphertext. */
const MAGIC = Buffer.from("CPS1", "ascii");
const HEAD = 4 + 8 + 12 + 16;

/** Seal bytes with AES-256-GCM under `key`; the header (magic + key id) is authenticated too. */
export function seal(key: StateKey, plain: Uint8Array): Buffer {
  const iv = randomBytes(12);
  const kid = Buffer.from(key.id, "hex");
  const c = createCipheriv("aes-256-gcm", key.enc, iv);
  c.setAAD(Buffer.concat([MAGIC, kid]));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([MAGIC, kid, iv, c.getAuthTag(), body]);
}

/** The key id a sealed blob names, or null when the bytes are not sealed. */
export function sealedKeyId(bytes: Uint8Array): string | null {
  if (bytes.length < HEAD || !Buffer.from(bytes.subarray(0, 4)).equals(MAGIC)) return null;
  return Buffer.from(bytes.subarray(4, 12)).toString("hex");
}

/** Open a sealed blob with whichever of `keys` it names; a missing or wrong key fails with what to set. */
export function unseal(keys: readonly StateKey[], bytes: Uint8Array, what: string): Buffer {
  const id = sealedKeyId(bytes);
  if (id === null) throw new SnapshotKeyError(`${what} is not sealed by checkpost (bad header): the snapshot is damaged or not checkpost's`);
  const key = keys.find((k) => k.id === id);
  if (!key)
    throw new SnapshotKeyError(
      keys.length === 0
        ? `${what} is sealed (key id ${id}) and no key is set: set CHECKPOST_STATE_KEY (or give the old key in CHECKPOST_STATE_OLD_KEYS)`
        : `${what} is sealed with key id ${id}, which none of the given keys (${keys.map((k) => k.id).join(", ")}) is: give that key in CHECKPOST_STATE_KEY or CHECKPOST_STATE_OLD_KEYS`,
    );
  const b = Buffer.from(bytes);
  const d = createDecipheriv("aes-256-gcm", key.enc, b.subarray(12, 24));
  d.setAAD(b.subarray(0, 12));
  d.setAuthTag(b.subarray(24, 40));
  try {
    return Buffer.concat([d.update(b.subarray(HEAD)), d.final()]);
  } catch {
    throw new SnapshotKeyError(`${what} does not authenticate under key id ${id}: it was altered on the forge, or the key is wrong`);
  }
}

/** A chunk's content address: sha256 of the bytes, or with a key an HMAC, so the forge cannot test a guess of the content. */
export function chunkName(bytes: Uint8Array, key: StateKey | null): string {
  return key ? createHmac("sha256", key.name).update(bytes).digest("hex") : createHash("sha256").update(bytes).digest("hex");
}

/** sha256 of bytes, hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
