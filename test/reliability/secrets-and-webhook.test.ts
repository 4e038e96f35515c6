import { Writable } from "node:stream";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { DestinationStream } from "pino";
import { createLogger } from "../../src/log/create-logger.ts";
import { readCappedBody } from "../../src/bot/ingest/read-capped-body.ts";

const TOKEN = "0123456789abcdef0123456789abcdef01234567";
const KEY = "signing-key-do-not-log-0001";

function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let out = "";
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { logger: createLogger({ destination: destination as unknown as DestinationStream, secrets: [TOKEN, KEY], pretty: false }), text: () => out };
}

describe("secrets never reach the logs", () => {
  it("redacts the token and key under the common keys and in messages", () => {
    const { logger, text } = capture();
    logger.info({ token: TOKEN }, "token key");
    logger.info({ headers: { authorization: `token ${TOKEN}` } }, "authorization header");
    logger.info({ req: { headers: { authorization: `token ${TOKEN}` } } }, "request header");
    logger.info({ env: { FORGEJO_TOKEN: TOKEN, CHECKPOST_SIGNING_KEY: KEY } }, "env");
    logger.info({ FORGEJO_TOKEN: TOKEN, signingKey: KEY, secret: KEY }, "top-level");
    logger.info({ config: { secret: KEY } }, "config");
    logger.warn(`request failed with token ${TOKEN}`);
    expect(text()).toContain("[redacted]");
    expect(text().split("\n").filter(Boolean)).toHaveLength(7);
    expect(text()).not.toContain(TOKEN);
    expect(text()).not.toContain(KEY);
  });

  // Found by this suite, fixed in src/log/create-logger.ts: the serialised line is scrubbed for every known secret.
  it("redacts the token inside an error's message", () => {
    const { logger, text } = capture();
    logger.error({ err: new Error(`Forgejo said: bad token ${TOKEN}`) }, "save failed");
    logger.error(new Error(`bad token ${TOKEN}`));
    expect(text()).not.toContain(TOKEN);
  });

  it("redacts the token under Authorization, password, auth and deeper paths", () => {
    const { logger, text } = capture();
    logger.info({ Authorization: `token ${TOKEN}`, password: TOKEN, auth: TOKEN, a: { b: { token: TOKEN } } }, "odd keys");
    expect(text()).not.toContain(TOKEN);
  });
});

describe("webhook body cap (src/bot/ingest/read-capped-body.ts)", () => {
  it("stops reading past the limit, with or without Content-Length", async () => {
    const seen: Array<number | null> = [];
    const server = createServer((req, res) => {
      void readCappedBody(req, 1024).then((b) => {
        seen.push(b === null ? null : b.length);
        res.writeHead(b === null ? 413 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect((await fetch(url, { method: "POST", body: "x".repeat(1000) })).status).toBe(200);
      expect((await fetch(url, { method: "POST", body: "x".repeat(5000) })).status).toBe(413);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(512).fill(120));
          c.close();
        },
      });
      expect((await fetch(url, { method: "POST", body: stream, duplex: "half" } as RequestInit)).status).toBe(413);
      expect(seen).toEqual([1000, null, null]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
