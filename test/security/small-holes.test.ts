/**
 * Issue 9, "the smaller holes": prototype keys as phase-map names, credentials in FORGEJO_URL, and the
 * embedded Forgejo's answers to malformed escapes, Basic credentials, a `null` PATCH body, oversized and
 * slow bodies; the forge's data directory and database are owner-only.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/app/cli.ts";
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import { redactUrl } from "../../src/util/redact-url.ts";
import { api, asRecord, seededForge, type Seeded } from "../forge/helpers.ts";
import { botWorld, type BotWorld } from "../helpers/bot-world.ts";
import { forgeWorld, type ForgeWorld } from "../helpers/forge-fixture.ts";

let s: Seeded | undefined;
let fw: ForgeWorld | undefined;
let bw: BotWorld | undefined;
let forge: ForgeServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await s?.forge.close();
  await fw?.close();
  await bw?.close();
  await forge?.close();
  s = fw = bw = forge = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cliIo(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env, cwd: mkdtempSync(join(tmpdir(), "checkpost-cwd-")) };
  dirs.push(cli.cwd);
  return { cli, out, err };
}

describe("prototype keys are not phase maps", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])("checkpost resume --map %s is a usage error (exit 2)", async (name) => {
    fw = await forgeWorld();
    const t = cliIo({ FORGEJO_URL: fw.forge.url, FORGEJO_TOKEN: fw.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")) });
    expect(await runCli(["resume", "--agent", "a", "--session", "s", "--map", name], t.cli)).toBe(2);
    expect(t.err.join("")).toContain(`--map ${name}: not a built-in map`);
    expect(t.out).toEqual([]);
  });

  it("the bot API answers map=__proto__ and map=constructor with 400", async () => {
    bw = await botWorld();
    for (const name of ["__proto__", "constructor"]) {
      const r = await bw.botFetch(`/api/resume?agent=a&session=s&map=${name}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toContain(`unknown map "${name}"`);
    }
    expect((await bw.botFetch("/api/resume?agent=a&session=s&map=implementation-worker")).status).toBe(200);
  });
});

describe("credentials in FORGEJO_URL", () => {
  it("redactUrl hides userinfo and nothing else", () => {
    expect(redactUrl("https://user:pa%40ss@forge.example/x?y#z")).toBe("https://***@forge.example/x?y#z");
    expect(redactUrl("http://token@127.0.0.1:3000")).toBe("http://***@127.0.0.1:3000");
    expect(redactUrl("http://127.0.0.1:3000/a@b")).toBe("http://127.0.0.1:3000/a@b");
    expect(redactUrl("not a url")).toBe("not a url");
  });

  it("the CLI works with them and never prints them, whether Forgejo answers or not", async () => {
    fw = await forgeWorld();
    const withCreds = fw.forge.url.replace("http://", "http://someone:hunter2-secret@");
    const ok = cliIo({ FORGEJO_URL: withCreds, FORGEJO_TOKEN: fw.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")) });
    expect(await runCli(["status", "--json"], ok.cli)).toBe(0);
    const down = cliIo({
      FORGEJO_URL: "http://someone:hunter2-secret@127.0.0.1:9",
      FORGEJO_TOKEN: fw.token,
      FORGEJO_REPOSITORY: "agent/work",
      CHECKPOST_RETRIES: "0",
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
    });
    expect(await runCli(["latest", "--agent", "a", "--debug"], down.cli)).toBe(1);
    const printed = [...ok.out, ...ok.err, ...down.out, ...down.err].join("\n");
    expect(down.err.join("")).toContain("Could not reach Forgejo");
    expect(printed).not.toContain("hunter2-secret");
  });
});

describe("embedded Forgejo answers like Forgejo", () => {
  it("answers a malformed percent-escape in the path with 400, API and web view alike", async () => {
    s = await seededForge();
    for (const path of ["/api/v1/repos/alice/wid%zzgets/issues", "/api/v1/repos/alice/widgets/issues/%E0%A4%A", "/alice/wid%zz/issues/1"]) {
      const r = await fetch(`${s.forge.url}${path}`);
      expect(r.status, path).toBe(400);
      expect(await r.text()).toBe("400 Bad Request");
    }
    expect((await fetch(`${s.forge.url}/api/v1/repos/alice/wid%67ets`)).status).toBe(200); // a valid escape still works
    // A request-target no URL parser accepts (sent raw: fetch would refuse to build it).
    const { port } = new URL(s.forge.url);
    const statusLine = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(Number(port), "127.0.0.1", () => sock.write("GET http://[::1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      let buf = "";
      sock.on("data", (d) => (buf += String(d)));
      sock.on("close", () => resolve(buf.split("\r\n")[0] ?? ""));
      sock.on("error", reject);
    });
    expect(statusLine).toBe("HTTP/1.1 400 Bad Request");
  });

  it("answers wrong Basic credentials with 401 on every route, and accepts a token given as Basic", async () => {
    s = await seededForge();
    const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}` });
    const wrong = await fetch(`${s.forge.apiUrl}/repos/alice/widgets`, { headers: basic("alice", "wrong-password") });
    expect(wrong.status).toBe(401);
    expect(asRecord(await wrong.json()).message).toMatch(/password is invalid/);
    const unknown = await fetch(`${s.forge.apiUrl}/repos/alice/widgets`, { headers: basic("nobody", "x") });
    expect(unknown.status).toBe(401);
    expect(asRecord(await unknown.json()).message).toMatch(/user does not exist/);
    for (const h of [basic("alice", s.alice), basic(s.alice, ""), basic(s.alice, "x-oauth-basic")]) {
      const r = await fetch(`${s.forge.apiUrl}/user`, { headers: h });
      expect(r.status).toBe(200);
      expect(asRecord(await r.json()).login).toBe("alice");
    }
    expect((await fetch(`${s.forge.apiUrl}/repos/alice/widgets`)).status).toBe(200); // anonymous read of a public repo
  });

  it("signs in with a user's password given as Basic, as Forgejo does, and limits password guesses (issue 33)", async () => {
    s = await seededForge({ signInLimits: { perIp: 100, perAccount: 3, windowMs: 60_000 } });
    s.forge.admin.setPassword("alice", "correct horse");
    const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}` });
    const right = await fetch(`${s.forge.apiUrl}/user`, { headers: basic("alice", "correct horse") });
    expect(right.status).toBe(200);
    expect(asRecord(await right.json()).login).toBe("alice");
    // A right password takes no slot; wrong ones do, and past the account's limit the answer is 429.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${s.forge.apiUrl}/user`, { headers: basic("alice", `guess ${i}`) })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await fetch(`${s.forge.apiUrl}/user`, { headers: basic("alice", "correct horse") });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // A token given as Basic is not a password attempt: it still works while the password is limited.
    expect((await fetch(`${s.forge.apiUrl}/user`, { headers: basic("alice", s.alice) })).status).toBe(200);
  });

  it("answers a PATCH whose body is JSON null with 422 and changes nothing", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "keep me", body: "kept" });
    const c = asRecord((await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.alice, body: { body: "kept" } })).json);
    expect((await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${i.number}`, { token: s.alice, rawBody: "null" })).status).toBe(422);
    expect((await api(s.forge, "PATCH", `/repos/alice/widgets/issues/comments/${String(c.id)}`, { token: s.alice, rawBody: "null" })).status).toBe(422);
    const issue = asRecord((await api(s.forge, "GET", `/repos/alice/widgets/issues/${i.number}`)).json);
    expect([issue.title, issue.body]).toEqual(["keep me", "kept"]);
    expect((await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${i.number}`, { token: s.alice, body: { title: "renamed" } })).status).toBe(201);
  });

  it("answers an oversized body with 413, declared or streamed, and keeps serving", async () => {
    forge = await startForge({ maxBodyBytes: 1024 });
    forge.admin.createUser("u");
    const token = forge.admin.createToken("u");
    forge.admin.createRepo("u", "r");
    const i = forge.admin.createIssue("u", "r", { title: "t" });
    const url = `${forge.apiUrl}/repos/u/r/issues/${i.number}/comments`;
    const headers = { authorization: `token ${token}`, "content-type": "application/json" };
    const declared = await fetch(url, { method: "POST", headers, body: JSON.stringify({ body: "x".repeat(2000) }) });
    expect(declared.status).toBe(413);
    const chunks = [Buffer.from('{"body":"'), Buffer.alloc(4000, "y"), Buffer.from('"}')];
    const stream = new ReadableStream({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const streamed = await fetch(url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    const small = await fetch(url, { method: "POST", headers, body: JSON.stringify({ body: "fits" }) });
    expect(small.status).toBe(201);
  });

  it("times out a request body that does not arrive (408) and closes the connection", async () => {
    forge = await startForge({ bodyTimeoutMs: 300 });
    const { port } = new URL(forge.url);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/v1/user/repos", headers: { "content-type": "application/json", "content-length": "100" } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      });
      req.on("error", reject);
      req.write('{"name":'); // and never the rest
    });
    expect(answer).toEqual({ status: 408, connection: "close" });
  });

  it("creates its data directory 0700 and its database 0600", async () => {
    const parent = mkdtempSync(join(tmpdir(), "checkpost-forge-"));
    dirs.push(parent);
    const dir = join(parent, "data", "forge");
    forge = await startForge({ dataDir: dir });
    forge.admin.createUser("u"); // a write, so the WAL file exists
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(parent, "data")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "forge.sqlite")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "forge.sqlite-wal")).mode & 0o777).toBe(0o600);
  });
});
