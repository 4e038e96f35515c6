import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Why `header` (a `sha256=<hex>` HMAC of `body` under `secret`, as GitHub's X-Hub-Signature-256 and
 * Forgejo's copy of it are made) does not authenticate `body`, or null when it does. `name` is the header's,
 * for the message. Compared in constant time.
 */
export function sha256SignatureProblem(name: string, header: string | readonly string[] | undefined, body: Buffer | string, secret: string, prefix = "sha256="): string | null {
  const sig = Array.isArray(header) ? header[0] : header;
  if (!sig) return `no ${name} header`;
  const expected = Buffer.from(`${prefix}${createHmac("sha256", secret).update(body).digest("hex")}`);
  const actual = Buffer.from(sig);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return "signature does not match";
  return null;
}
