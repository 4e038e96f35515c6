import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "../../../src/cli/node-http-fetch.ts";
import type { RequestLogEntry } from "../../../src/cli/node-http-fetch.ts";

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/tls/${name}`, import.meta.url));
const servers: Server[] = [];
const listen = async (server: Server) => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe("nodeHttpFetch (the CLI's fetch on node:http)", () => {
  it("sends method, headers and body over http and logs the request without its headers", async () => {
    const port = await listen(
      createHttpServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => {
          body += c.toString();
        });
        req.on("end", () => {
          res.writeHead(201, { "content-type": "application/json" });
          res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, length: req.headers["content-length"], body }));
        });
      }),
    );
    const log: RequestLogEntry[] = [];
    const fetch = nodeHttpFetch((e) => log.push(e));
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/x?y=1`, { method: "post", headers: { Authorization: "token s3cret" }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(await res.text())).toEqual({ method: "POST", auth: "token s3cret", length: "7", body: '{"a":1}' });
    expect(log).toEqual([{ method: "POST", path: "/api/v1/x?y=1", status: 201, ms: expect.any(Number) }]);
    expect(JSON.stringify(log)).not.toContain("s3cret");
  });

  it("speaks TLS to an https:// URL (here: refuses a self-signed certificate, as it must)", async () => {
    const port = await listen(
      createHttpsServer({ key: fixture("localhost.key"), cert: fixture("localhost.crt") }, (_req, res) => {
        res.end("{}");
      }),
    );
    const err = await nodeHttpFetch()(`https://127.0.0.1:${port}/`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
  });
});
