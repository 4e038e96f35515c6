/** Write a body under a bandwidth cap: chunks of bytesPerSec/10 every 100 ms. */
import type { ServerResponse } from "node:http";

export async function writeThrottled(res: ServerResponse, body: Buffer, bytesPerSec: number): Promise<void> {
  const chunk = Math.max(1, Math.floor(bytesPerSec / 10));
  for (let off = 0; off < body.length; off += chunk) {
    if (res.destroyed) return;
    if (off > 0) await new Promise((r) => setTimeout(r, 100));
    res.write(body.subarray(off, off + chunk));
  }
  res.end();
}
