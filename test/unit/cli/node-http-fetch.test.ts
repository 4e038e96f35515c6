import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DECODE_AS_READ_BYTES, nodeHttpFetch } from "../../../src/cli/node-http-fetch.ts";
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

  it("a large text body decoded as it arrives is the same text: characters split across chunks, a BOM, invalid bytes", async () => {
    // Odd-sized writes, so the 2-, 3- and 4-byte characters fall across chunk boundaries, past the threshold.
    const text = `\uFEFF${'{"body":"'}${"é€😀a".repeat(Math.ceil((DECODE_AS_READ_BYTES * 2) / 10))}"}`;
    const bytes = Buffer.concat([Buffer.from(text, "utf8"), Buffer.from([0xe2, 0x82])]); // ends with a cut character
    const port = await listen(
      createHttpServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        for (let at = 0; at < bytes.length; at += 7001) res.write(bytes.subarray(at, at + 7001));
        res.end();
      }),
    );
    const res = await nodeHttpFetch()(`http://127.0.0.1:${port}/`);
    const got = await res.text();
    expect(got.length).toBe(bytes.toString("utf8").length);
    expect(got === bytes.toString("utf8")).toBe(true);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes.toString("utf8"), "utf8"))).toBe(true);
  });

  it("a large binary body stays bytes, exactly", async () => {
    const bytes = Buffer.alloc(DECODE_AS_READ_BYTES * 2 + 3, 0xff);
    bytes.write("gz", 0);
    const port = await listen(
      createHttpServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/gzip" });
        res.end(bytes);
      }),
    );
    const res = await nodeHttpFetch()(`http://127.0.0.1:${port}/`);
    const body = (res as unknown as { body: Buffer | string }).body;
    expect(Buffer.isBuffer(body) && body.equals(bytes)).toBe(true);
  });
});
