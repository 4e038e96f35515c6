import { createHash } from "node:crypto";

/**
 * A short digest of a comment body (96 bits, base64url). The projection keeps
 * this instead of the body to notice edits and to break ties between versions.
 */
export function bodyHash(body: string): string {
  return createHash("sha256").update(body, "utf8").digest("base64url").slice(0, 16);
}
