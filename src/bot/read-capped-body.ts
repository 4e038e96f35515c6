import type { IncomingMessage } from "node:http";

/** The request body as UTF-8 text, or null once it exceeds `limit` bytes (reading stops there). */
export async function readCappedBody(req: IncomingMessage, limit: number): Promise<string | null> {
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
  return Buffer.concat(chunks).toString("utf8");
}
