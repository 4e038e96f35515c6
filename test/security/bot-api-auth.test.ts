/**
 * Issue 9: the bot's /api/resume, /api/agents and /api/sessions handed every agent's saved state to anyone
 * who could reach the port. Now /api/* needs a bearer token from CHECKPOST_API_TOKEN.
 */
import type { IncomingMessage } from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiAccessGuard } from "../../src/bot/api/api-access.ts";
import { BotEnvSchema } from "../../src/config/bot-env.ts";
import { parseEnv } from "../../src/config/env.ts";
import { formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { API_TOKEN, botWorld, type BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const SAVED_SECRET = "ghp_saved-by-an-agent-0123456789";
const ROUTES = ["/api/resume?agent=implementation-worker&session=s1", "/api/agents", "/api/sessions"];

async function worldWithSavedState(apiTokens?: string[]): Promise<BotWorld> {
  const world = await botWorld(apiTokens ? { apiTokens } : {});
  const body = formatCheckpoint({ agent: "implementation-worker", session: "s1", phase: "clone_complete", timestamp: pythonUtcIsoformat(new Date()), data: { token: SAVED_SECRET } });
  await world.api(world.agentToken).createComment(world.repo, world.issue, body);
  await world.settle();
  return world;
}

async function expectRefused(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe('Bearer realm="checkpost"');
  const text = await res.text();
  expect(text).toBe('{"error":"unauthorized"}');
  expect(text).not.toContain(SAVED_SECRET);
}

describe("bot API bearer token", () => {
  it("refuses /api/* without a token, with a wrong one and with a malformed header; answers with the right one", async () => {
    w = await worldWithSavedState();
    const url = w.bot.url;
    for (const route of ROUTES) {
      await expectRefused(await fetch(`${url}${route}`));
      await expectRefused(await fetch(`${url}${route}`, { headers: { authorization: "Bearer wrong-token-0123456789abcdef" } }));
      await expectRefused(await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${API_TOKEN}x` } }));
      await expectRefused(await fetch(`${url}${route}`, { headers: { authorization: `Basic ${Buffer.from(`u:${API_TOKEN}`).toString("base64")}` } }));
      await expectRefused(await fetch(`${url}${route}`, { headers: { authorization: API_TOKEN } }));
      await expectRefused(await fetch(`${url}${route}?token=${API_TOKEN}`));
      const head = await fetch(`${url}${route}`, { method: "HEAD" });
      expect(head.status).toBe(401);
      const ok = await fetch(`${url}${route}`, { headers: { authorization: `bearer ${API_TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("cache-control")).toBe("no-store");
    }
    const resume = await w.botFetch("/api/resume?agent=implementation-worker&session=s1");
    expect(await resume.text()).toContain(SAVED_SECRET);
  });

  it("accepts every token of a comma-separated list (rotation)", async () => {
    w = await worldWithSavedState(["old-token-0123456789abcdef", "new-token-0123456789abcdef"]);
    for (const t of ["old-token-0123456789abcdef", "new-token-0123456789abcdef"]) {
      expect((await fetch(`${w.bot.url}/api/sessions`, { headers: { authorization: `Bearer ${t}` } })).status).toBe(200);
    }
    await expectRefused(await fetch(`${w.bot.url}/api/sessions`, { headers: { authorization: `Bearer ${API_TOKEN}` } }));
  });

  it("keeps /healthz and /readyz open, and /metrics behind the token once one is set", async () => {
    w = await worldWithSavedState();
    expect((await fetch(`${w.bot.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${w.bot.url}/readyz`)).status).toBe(200);
    await expectRefused(await fetch(`${w.bot.url}/metrics`));
    expect((await w.botFetch("/metrics")).status).toBe(200);
  });

  it("with no token configured serves saved state to nobody, and /metrics to loopback only", async () => {
    w = await worldWithSavedState([]);
    for (const route of ROUTES) {
      await expectRefused(await fetch(`${w.bot.url}${route}`));
      await expectRefused(await fetch(`${w.bot.url}${route}`, { headers: { authorization: "Bearer " } }));
    }
    expect((await fetch(`${w.bot.url}/metrics`)).status).toBe(200); // this test's client is on loopback
    expect(w.logs.join("")).toContain("CHECKPOST_API_TOKEN is not set");
  });

  it("answers a request-target that is not a URL with 404, not 500", async () => {
    w = await worldWithSavedState();
    const { port } = new URL(w.bot.url);
    const statusLine = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(Number(port), "127.0.0.1", () => sock.write("GET http://[::1/api/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      let buf = "";
      sock.on("data", (d) => (buf += String(d)));
      sock.on("close", () => resolve(buf.split("\r\n")[0] ?? ""));
      sock.on("error", reject);
    });
    expect(statusLine).toBe("HTTP/1.1 404 Not Found");
  });

  it("logs no token", async () => {
    w = await worldWithSavedState();
    await w.botFetch("/api/sessions");
    expect(w.logs.join("")).not.toContain(API_TOKEN);
  });
});

describe("ApiAccessGuard", () => {
  const req = (remoteAddress: string, authorization?: string) => ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;

  it("serves /metrics without a token to loopback addresses only", () => {
    const guard = new ApiAccessGuard([]);
    for (const a of ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"]) expect(guard.allows(req(a), "/metrics"), a).toBe(true);
    for (const a of ["10.0.0.5", "192.168.1.2", "::ffff:10.0.0.5", "fe80::1", "0.0.0.0", "", "127.0.0.1.evil"]) expect(guard.allows(req(a), "/metrics"), a).toBe(false);
    expect(guard.allows(req("127.0.0.1", "Bearer anything-at-all-0123456789"), "/api/resume")).toBe(false);
    expect(guard.allows(req("10.0.0.5"), "/healthz")).toBe(true);
  });

  it("requires the token for /metrics from anywhere once one is set", () => {
    const guard = new ApiAccessGuard(["a-token-0123456789abcdef"]);
    expect(guard.allows(req("127.0.0.1"), "/metrics")).toBe(false);
    expect(guard.allows(req("10.0.0.5", "Bearer a-token-0123456789abcdef"), "/metrics")).toBe(true);
    expect(guard.allows(req("10.0.0.5", "Bearer a-token-0123456789abcde"), "/api/agents")).toBe(false);
    expect(guard.allows(req("10.0.0.5", "Bearer  a-token-0123456789abcdef "), "/api/agents")).toBe(true);
  });
});

describe("CHECKPOST_API_TOKEN in the env schema", () => {
  const base = { CHECKPOST_REPOSITORIES: "a/b" };
  it("parses a comma-separated list", () => {
    expect(parseEnv(BotEnvSchema, { ...base, CHECKPOST_API_TOKEN: " old-token-0123456789, new-token-0123456789 " }).CHECKPOST_API_TOKEN).toEqual(["old-token-0123456789", "new-token-0123456789"]);
    expect(parseEnv(BotEnvSchema, base).CHECKPOST_API_TOKEN).toEqual([]);
  });
  it("rejects short tokens and tokens with spaces, naming the variable", () => {
    expect(() => parseEnv(BotEnvSchema, { ...base, CHECKPOST_API_TOKEN: "short" })).toThrow(/CHECKPOST_API_TOKEN.*16 characters/);
    expect(() => parseEnv(BotEnvSchema, { ...base, CHECKPOST_API_TOKEN: "has a space in it 0123456789" })).toThrow(/CHECKPOST_API_TOKEN/);
  });
});
