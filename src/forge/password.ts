import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

/** "scrypt$<salt hex>$<hash hex>" (Forgejo defaults to pbkdf2/argon2; any slow salted hash will do here). */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("hex")}$${scryptSync(password, salt, 32).toString("hex")}`;
}

/** Constant-time check of a password against `hashPassword`'s output. */
export function verifyPassword(password: string, stored: string | undefined): boolean {
  const m = stored ? /^scrypt\$([0-9a-f]{32})\$([0-9a-f]{64})$/.exec(stored) : null;
  if (!m) return false;
  const actual = scryptSync(password, Buffer.from(m[1] as string, "hex"), 32);
  return timingSafeEqual(actual, Buffer.from(m[2] as string, "hex"));
}
