import { randomBytes, scrypt, scryptSync, timingSafeEqual } from "node:crypto";

/** "scrypt$<salt hex>$<hash hex>" (Forgejo defaults to pbkdf2/argon2; any slow salted hash will do here). */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("hex")}$${scryptSync(password, salt, 32).toString("hex")}`;
}

const STORED = /^scrypt\$([0-9a-f]{32})\$([0-9a-f]{64})$/;

/**
 * One scrypt at a time, in arrival order. Off the loop is not enough on a small machine: four pool
 * threads hashing at once take both cores of a two-core host from the event loop that, under
 * `npm start`, also runs the bot. A storm then waits in this queue (its length is bounded by the
 * sign-in rate limit), not the bot.
 */
let queue: Promise<unknown> = Promise.resolve();

/** scrypt on libuv's thread pool, never on the event loop, one at a time. */
export function scryptAsync(password: string, salt: Buffer): Promise<Buffer> {
  const run = () => new Promise<Buffer>((resolve, reject) => scrypt(password, salt, 32, (err, key) => (err ? reject(err) : resolve(key))));
  const next = queue.then(run, run);
  queue = next.catch(() => undefined);
  return next;
}

/** A hash no password matches (its salt and digest are random), checked when the user is unknown or has none. */
let dummy: string | undefined;
const dummyHash = () => {
  dummy ??= `scrypt$${randomBytes(16).toString("hex")}$${randomBytes(32).toString("hex")}`;
  return dummy;
};

/**
 * Constant-time check of a password against `hashPassword`'s output, off the event loop. An unknown user
 * (or one with no password) costs the same scrypt as a known one, against a dummy hash, so the answer's
 * timing does not tell which logins exist.
 */
export async function verifyPassword(password: string, stored: string | undefined, kdf: (password: string, salt: Buffer) => Promise<Buffer> = scryptAsync): Promise<boolean> {
  const real = stored ? STORED.exec(stored) : null;
  const m = real ?? (STORED.exec(dummyHash()) as RegExpExecArray);
  const actual = await kdf(password, Buffer.from(m[1] as string, "hex"));
  return timingSafeEqual(actual, Buffer.from(m[2] as string, "hex")) && real !== null;
}
