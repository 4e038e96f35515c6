import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { commentFixture } from "../../fixtures/index.ts";

let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function io(env: NodeJS.ProcessEnv = {}, stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => stdin, env, cwd: process.cwd() };
  return { cli, out, err, json: () => JSON.parse(out.join("")) as unknown };
}

const envFor = (w: ForgeWorld, extra: NodeJS.ProcessEnv = {}) => ({
  FORGEJO_URL: w.forge.url,
  FORGEJO_TOKEN: w.token,
  FORGEJO_REPOSITORY: "agent/work",
  CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cache-")),
  ...extra,
});

describe("checkpost CLI", () => {
  it("parse prints the checkpoint and exits 0", async () => {
    const t = io({}, commentFixture("seed-fenced"));
    expect(await runCli(["parse"], t.cli)).toBe(0);
    expect(t.json()).toMatchObject({ kind: "checkpoint", agent: "implementation-worker", session: "sess-42", phase: "subtask_1_complete", version: "1.0", data: { issue_number: 7 } });
  });

  it.each([
    ["hello there", { kind: "none" }],
    [commentFixture("malformed-json"), { kind: "invalid", agent: "implementation-worker" }],
    [commentFixture("health"), { kind: "health", agent: "implementation-orchestrator", status: "Active" }],
  ])("parse exits 0 whatever the body holds (%#)", async (body, expected) => {
    const t = io({}, body);
    expect(await runCli(["parse"], t.cli)).toBe(0);
    expect(t.json()).toMatchObject(expected);
  });

  it("format checkpoint prints a body the parser reads back", async () => {
    const t = io();
    expect(await runCli(["format", "checkpoint", "--agent", "a", "--session", "s", "--phase", "p", "--data", '{"x":1}', "--time", "2026-11-29T10:00:00Z"], t.cli)).toBe(0);
    const back = io({}, t.out.join(""));
    await runCli(["parse"], back.cli);
    expect(back.json()).toEqual({ kind: "checkpoint", agent: "a", session: "s", phase: "p", version: "1.0", timestamp: "2026-11-29T10:00:00Z", data: { x: 1 } });
  });

  it("format control takes the registry's actions: a body the parser reads back, an unknown action named with the choices", async () => {
    const t = io();
    const argv = ["format", "control", "--agent", "a", "--session", "s", "--action", "release", "--epoch", "3", "--by", "alice", "--time", "2026-11-29T10:00:00Z"];
    expect(await runCli(argv, t.cli)).toBe(0);
    const back = io({}, t.out.join(""));
    await runCli(["parse"], back.cli);
    expect(back.json()).toEqual({ kind: "control", agent: "a", session: "s", action: "release", epoch: 3, by: "alice", timestamp: "2026-11-29T10:00:00Z" });
    const u = io();
    expect(await runCli(["format", "control", "--agent", "a", "--session", "s", "--action", "explode"], u.cli)).toBe(2);
    expect(u.err.join("")).toContain("Allowed choices are pause, unpause, rewind, release, hide");
    const r = io();
    expect(await runCli(["format", "control", "--agent", "a", "--session", "s", "--action", "rewind"], r.cli)).toBe(1);
    expect(r.err.join("")).toContain("rewind needs target and epoch");
  });

  it("exits 2 on usage errors with a message saying what is wrong", async () => {
    const t = io();
    expect(await runCli(["format", "checkpoint", "--agent", "a", "--session", "s", "--phase", "p", "--data", "[1]"], t.cli)).toBe(2);
    expect(t.err.join("")).toMatch(/--data must be a JSON object/);
    const u = io();
    expect(await runCli(["save", "--agent", "a"], u.cli)).toBe(2);
    expect(u.err.join("")).toContain("missing flags --session, --phase");
  });

  it("names every missing flag in one message, and an unknown option as unknown", async () => {
    const t = io();
    expect(await runCli(["save"], t.cli)).toBe(2);
    expect(t.err.join("")).toContain("save: missing flags --agent, --session, --phase");
    const u = io();
    expect(await runCli(["save", "--agnet", "a", "--session", "s", "--phase", "p"], u.cli)).toBe(2);
    expect(u.err.join("")).toContain("unknown option '--agnet'");
    expect(u.err.join("")).not.toContain("missing");
  });

  it("--version prints the package's version", async () => {
    const t = io();
    expect(await runCli(["--version"], t.cli)).toBe(0);
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(t.out.join("").trim()).toBe(version);
  });

  it("exits 1 with the fix and no stack trace when configuration is missing", async () => {
    const t = io({});
    expect(await runCli(["latest", "--agent", "a"], t.cli)).toBe(1);
    expect(t.err.join("\n")).toMatch(/set FORGEJO_URL/);
    expect(t.err.join("\n")).not.toMatch(/\n\s+at /);
  });

  it("exits 1 with the fix on a rejected token", async () => {
    world = await forgeWorld();
    const t = io(envFor(world, { FORGEJO_TOKEN: "wrong-token-value" }));
    expect(await runCli(["latest", "--agent", "a"], t.cli)).toBe(1);
    expect(t.err.join("")).toMatch(/rejected the token \(401\)/);
    expect(t.err.join("")).not.toContain("wrong-token-value");
  });

  it("save → latest → resume → status round trip", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    const s = io(env);
    expect(await runCli(["save", "--agent", "implementation-worker", "--session", "s1", "--phase", "commit_complete", "--data", '{"commit_sha":"abc"}'], s.cli)).toBe(0);
    const saved = s.json() as { comment_id: number; issue: number; phase: string };
    expect(saved).toMatchObject({ issue: world.issue, kind: "checkpoint", phase: "commit_complete", data: { commit_sha: "abc" } });

    const l = io(env);
    expect(await runCli(["latest", "--agent", "implementation-worker"], l.cli)).toBe(0);
    expect(l.json()).toMatchObject({ kind: "checkpoint", phase: "commit_complete", comment_id: saved.comment_id });

    const r = io(env);
    expect(await runCli(["resume", "--agent", "implementation-worker", "--session", "s1"], r.cli)).toBe(0);
    expect(r.json()).toMatchObject({ resume_point: "phase_4_pr", phase: "commit_complete", state: { commit_sha: "abc" } });
    // Liveness as status and the bot answer it, under CHECKPOST_STALE_AFTER_MS (1 ms: silent at 3 ms, so at once).
    expect((r.json() as { liveness: unknown }).liveness).toMatchObject({ state: "active", thresholdMs: 300_000 });
    const stale = io({ ...env, CHECKPOST_STALE_AFTER_MS: "1" });
    expect(await runCli(["resume", "--agent", "implementation-worker", "--session", "s1"], stale.cli)).toBe(0);
    expect((stale.json() as { liveness: unknown }).liveness).toMatchObject({ state: "silent", thresholdMs: 1, silentMs: 3 });

    const none = io(env);
    await runCli(["resume", "--agent", "implementation-worker", "--session", "other"], none.cli);
    expect(none.json()).toMatchObject({ resume_point: "start", phase: "fresh_start", state: {} });

    const nl = io(env);
    await runCli(["latest", "--agent", "nobody"], nl.cli);
    expect(nl.json()).toBeNull();

    const st = io(env);
    expect(await runCli(["status"], st.cli)).toBe(0);
    const text = st.out.join("\n");
    expect(text).toMatch(/SESSION s1\n.*AGENT\s+PHASE → RESUME POINT\s+LAST CHECKPOINT\s+HEALTH\s+LIVENESS\n\s+implementation-worker\s+commit_complete → phase_4_pr\s+just now\s+-\s+active/);
    expect(text.indexOf("NEEDS ATTENTION")).toBeLessThan(text.indexOf("SESSION s1"));
    expect(text.includes("\u001b")).toBe(false); // no colours when stdout is not a terminal

    const watched = io(env);
    expect(await runCli(["status", "--watch", "0.01", "--times", "2"], watched.cli)).toBe(0);
    expect(watched.out.filter((t) => t.startsWith("checkpost status"))).toHaveLength(2);
    const js = io(env);
    expect(await runCli(["status", "--json"], js.cli)).toBe(0);
    expect(js.json()).toMatchObject({ v: 1, entries: [{ agent: "implementation-worker", session: "s1" }] });
  });

  it("caches the issue number so the next save is one POST (and, read beside it, the issue for directives)", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    await runCli(["save", "--agent", "a", "--session", "s", "--phase", "p", "--data", "{}"], io(env).cli);
    world.forge.admin.resetStats();
    await runCli(["save", "--agent", "a", "--session", "s", "--phase", "q", "--data", "{}"], io(env).cli);
    // One POST and no issue lookup; the directive check's reads (the issue, and GET /user for the
    // trust policy, which may still be in flight when save returns) run beside it.
    const requests = world.forge.admin.stats().requests;
    expect(requests["POST /repos/{owner}/{repo}/issues/{index}/comments"]).toBe(1);
    expect(requests["GET /repos/{owner}/{repo}/issues"]).toBeUndefined();
  });

  it("resume takes a custom phase map from a JSON file", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    const dir = mkdtempSync(join(tmpdir(), "map-"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "map.json"), JSON.stringify({ review_posted: "await_merge" }));
    await runCli(["save", "--agent", "pr-self-reviewer", "--session", "s", "--phase", "review_posted", "--data", "{}"], io(env).cli);
    const r = io(env);
    await runCli(["resume", "--agent", "pr-self-reviewer", "--session", "s", "--map", join(dir, "map.json")], r.cli);
    expect(r.json()).toMatchObject({ resume_point: "await_merge", phase: "review_posted" });
  });

  it("install-webhook registers the app.yml events with the secret, replacing an older hook to the same URL", async () => {
    world = await forgeWorld();
    const env = envFor(world, { WEBHOOK_SECRET: "a-long-webhook-secret" });
    const first = io(env);
    expect(await runCli(["install-webhook", "--bot-url", "http://127.0.0.1:9/"], first.cli)).toBe(0);
    const second = io(env);
    expect(await runCli(["install-webhook", "--bot-url", "http://127.0.0.1:9"], second.cli)).toBe(0);
    const out = second.json() as { hook_id: number; url: string; events: string[]; replaced: number[] };
    // Forgejo keeps the hook's events expanded: "issues" turns on every issue sub-event (routers/api/v1/utils/hook.go:155-157).
    expect(out).toMatchObject({ url: "http://127.0.0.1:9/api/github/webhooks", events: ["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"] });
    expect(out.replaced).toEqual([(first.json() as { hook_id: number }).hook_id]);
    const hooks = await world.api().listHooks({ owner: "agent", repo: "work" });
    expect(hooks.map((h) => h.id)).toEqual([out.hook_id]);
  });

  it("install-webhook reads checkpost's own app.yml from any folder (an installed package has no ./app.yml); --app names another", async () => {
    world = await forgeWorld();
    const env = envFor(world, { WEBHOOK_SECRET: "a-long-webhook-secret" });
    const elsewhere = io(env);
    const empty = mkdtempSync(join(tmpdir(), "checkpost-nowhere-"));
    elsewhere.cli.cwd = empty;
    expect(await runCli(["install-webhook", "--bot-url", "http://127.0.0.1:9"], elsewhere.cli)).toBe(0);
    expect(elsewhere.json()).toMatchObject({ url: "http://127.0.0.1:9/api/github/webhooks" });
    const named = io(env);
    named.cli.cwd = empty;
    expect(await runCli(["install-webhook", "--bot-url", "http://127.0.0.1:9", "--app", "missing.yml"], named.cli)).toBe(1);
    expect(named.err.join("")).toMatch(/cannot read .*missing\.yml/);
  });

  it('a FORGEJO_URL that is not a Forgejo says so, not "repository does not exist"', async () => {
    // A web server that answers 404 pages to everything, as a wrong URL (a site, a proxy) does.
    const server = createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<html>not found</html>");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const t = io({ FORGEJO_URL: url, FORGEJO_TOKEN: "t", FORGEJO_REPOSITORY: "acme/widgets", CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "checkpost-cli-")), CHECKPOST_RETRIES: "0" });
      expect(await runCli(["resume", "--agent", "a", "--session", "s"], t.cli)).toBe(1);
      expect(t.err.join("")).toMatch(new RegExp(`${url} does not answer as a Forgejo API .*set FORGEJO_URL to the instance's base URL`));
      expect(t.err.join("")).not.toMatch(/repository/);
    } finally {
      server.close();
    }
  });

  it("install-webhook refuses to run without WEBHOOK_SECRET", async () => {
    world = await forgeWorld();
    const t = io(envFor(world));
    expect(await runCli(["install-webhook", "--bot-url", "http://127.0.0.1:9"], t.cli)).toBe(1);
    expect(t.err.join("")).toMatch(/WEBHOOK_SECRET must be set/);
  });

  it("takes FORGEJO_REPO=owner/name and a FORGEJO_URL ending in /api/v1", async () => {
    world = await forgeWorld();
    const t = io({ ...envFor(world), FORGEJO_REPOSITORY: undefined, FORGEJO_REPO: "agent/work", FORGEJO_URL: `${world.forge.url}/api/v1` });
    expect(await runCli(["save", "--agent", "a", "--session", "s", "--phase", "p", "--data", "{}"], t.cli)).toBe(0);
    expect(t.json()).toMatchObject({ issue: world.issue });
  });

  it("a 404 names the variable the repository came from", async () => {
    world = await forgeWorld();
    const t = io({ ...envFor(world), FORGEJO_REPOSITORY: undefined, FORGEJO_REPO: "agent/nothing-here" });
    expect(await runCli(["save", "--agent", "a", "--session", "s", "--phase", "p", "--data", "{}"], t.cli)).toBe(1);
    expect(t.err.join("")).toContain("repository from FORGEJO_REPO=agent/nothing-here");
    expect(t.err.join("")).not.toContain("FORGEJO_OWNER");
  });

  it("after resume, a plain save continues the fence and is the one resumed; a lower --epoch is refused", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    await runCli(["save", "--agent", "w", "--session", "s", "--phase", "one", "--data", '{"n":1}'], io(env).cli);
    const r = io(env);
    expect(await runCli(["resume", "--agent", "w", "--session", "s", "--take-over"], r.cli)).toBe(0);
    const took = r.json() as { epoch: number; next_seq: number };
    expect(took.epoch).toBeGreaterThan(0);
    const s = io(env);
    expect(await runCli(["save", "--agent", "w", "--session", "s", "--phase", "two", "--data", '{"n":2}'], s.cli)).toBe(0);
    expect(s.json()).toMatchObject({ epoch: took.epoch, seq: took.next_seq });
    const again = io(env);
    await runCli(["resume", "--agent", "w", "--session", "s"], again.cli);
    expect(again.json()).toMatchObject({ phase: "two", state: { n: 2 } });
    const z = io(env);
    expect(await runCli(["save", "--agent", "w", "--session", "s", "--phase", "three", "--data", "{}", "--epoch", "0"], z.cli)).toBe(2);
    expect(z.err.join("")).toMatch(/--epoch 0 is below epoch \d+.*Pass --epoch \d+ --seq \d+/);
  });

  it("an agent without a phase map resumes at its own phase (mapped: false); save warns on a phase its map lacks", async () => {
    world = await forgeWorld();
    const env = envFor(world);
    await runCli(["save", "--agent", "review-worker", "--session", "s", "--phase", "review_started", "--data", "{}"], io(env).cli);
    const r = io(env);
    await runCli(["resume", "--agent", "review-worker", "--session", "s"], r.cli);
    expect(r.json()).toMatchObject({ resume_point: "review_started", phase: "review_started", mapped: false });
    const w = io(env);
    expect(await runCli(["save", "--agent", "implementation-worker", "--session", "s", "--phase", "made_up", "--data", "{}"], w.cli)).toBe(0);
    expect(w.err.join("")).toMatch(/phase "made_up" is not in implementation-worker's phase map/);
    const dir = mkdtempSync(join(tmpdir(), "maps-"));
    writeFileSync(join(dir, "maps.json"), JSON.stringify({ "review-worker": { review_started: "review" } }));
    const m = io({ ...env, CHECKPOST_PHASE_MAPS: join(dir, "maps.json") });
    await runCli(["resume", "--agent", "review-worker", "--session", "s"], m.cli);
    expect(m.json()).toMatchObject({ resume_point: "review", mapped: true });
    const proto = io(env);
    expect(await runCli(["resume", "--agent", "a", "--session", "s", "--map", "__proto__"], proto.cli)).toBe(2);
  });

  it("--data-file - reads stdin; health is capped like save", async () => {
    world = await forgeWorld();
    const env = envFor(world, { CHECKPOST_MAX_CHECKPOINT_BYTES: "2000" });
    const t = io(env, '{"from":"stdin"}');
    expect(await runCli(["save", "--agent", "a", "--session", "s", "--phase", "p", "--data-file", "-"], t.cli)).toBe(0);
    expect(t.json()).toMatchObject({ data: { from: "stdin" } });
    world.forge.admin.resetStats();
    const h = io(env);
    expect(await runCli(["health", "--agent", "a", "--session", "s", "--metrics", JSON.stringify({ big: "x".repeat(5000) })], h.cli)).toBe(1);
    expect(h.err.join("")).toMatch(/health signal body is \d+ bytes, over the 2000-byte cap/);
    expect(world.forge.admin.stats().totalRequests).toBe(0);
  });
});
