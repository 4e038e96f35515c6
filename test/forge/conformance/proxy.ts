/**
 * A recording reverse proxy in front of the embedded forge: third-party clients talk to it as they would to
 * Forgejo, and every exchange (method, path, status, headers, raw body) is kept for the conformance checks.
 * Recording on the wire means the checks see exactly the bytes a client got, whatever the client does with
 * them afterwards.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Exchange {
  /** Which client sent it ("gitea-js", "forgejo-ts", "fetch"). */
  client: string;
  method: string;
  /** Path and query as sent, e.g. /api/v1/repos/a/b/issues?page=2. */
  url: string;
  requestContentType: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  /** Label the exchanges that follow with this client name. */
  setClient(name: string): void;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  let client = "unknown";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (up) => {
        const got: Buffer[] = [];
        up.on("data", (c: Buffer) => got.push(c));
        up.on("end", () => {
          const answer = Buffer.concat(got);
          exchanges.push({
            client,
            method: req.method ?? "GET",
            url: req.url ?? "/",
            requestContentType: String(req.headers["content-type"] ?? ""),
            status: up.statusCode ?? 0,
            headers: up.headers,
            body: answer,
          });
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(answer);
        });
      });
      out.on("error", (err) => {
        res.writeHead(502);
        res.end(String(err));
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    setClient(name) {
      client = name;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
