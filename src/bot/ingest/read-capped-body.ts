import type { IncomingMessage } from "node:http";

/**
 * The request body's bytes, or null once they exceed `limit` (reading stops there). Bytes, not text:
 * the signature is over the bytes Forgejo sent, and decoding happens once, after it is checked.
 */
export async function readCappedBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) {
    req.resume();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size);
}
