/** A real HTTP webhook receiver on port 0 that keeps the raw bytes and headers of every request. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Paths starting with /hang never get an answer (to exercise the delivery timeout). */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, raw: Buffer.concat(chunks) });
      if ((req.url ?? "").startsWith("/hang")) return;
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
