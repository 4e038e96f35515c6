// `checkpost mcp` driven as an MCP client drives it: the SDK's own Client over its StdioClientTransport,
// which spawns the CLI from source, against the embedded Forgejo on a random port. Each answer is compared
// with what the CLI prints for the same call, run in this process.
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/app/cli.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** `checkpost mcp` from the sources, startable from any folder (tsx by its own path, not looked up from the cwd). */
const serverArgs = ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href, join(root, "src/app/cli-main.ts"), "mcp"];

let world: ForgeWorld;
let client: Client;
let transport: StdioClientTransport;
/** The server's working folder, with the settings in its .env. */
let cwd: string;
/** The settings, as the server reads them from ./.env (its own environment has none of them). */
let settings: NodeJS.ProcessEnv;
const serverLog: string[] = [];

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
}

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}
const texts = (r: ToolResult) => r.content.map((c) => c.text ?? "");
const answer = (r: ToolResult) => JSON.parse(texts(r)[0] ?? "") as Record<string, unknown>;

/** The same call through the CLI, in this process: what a person at a shell would read. */
async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => "", env: settings, cwd: root };
  const code = await runCli(argv, io);
  return { code, out: out.join("\n").trim(), err: err.join("\n").trim() };
}

beforeAll(async () => {
  world = await forgeWorld();
  const dir = mkdtempSync(join(tmpdir(), "checkpost-mcp-"));
  settings = { FORGEJO_URL: world.forge.url, FORGEJO_TOKEN: world.token, FORGEJO_REPOSITORY: "agent/work", CHECKPOST_CACHE_DIR: join(dir, "cache") };
  cwd = dir;
  writeFileSync(
    join(dir, ".env"),
    Object.entries(settings)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(""),
  );
  // No FORGEJO_* in the server's environment (the SDK passes only PATH, HOME and the like): the settings
  // come from ./.env in the folder the client starts the server in, as for the CLI.
  transport = new StdioClientTransport({ command: process.execPath, args: serverArgs, cwd, stderr: "pipe" });
  transport.stderr?.on("data", (c: Buffer) => serverLog.push(c.toString()));
  client = new Client({ name: "checkpost-test", version: "0.0.0" });
  await client.connect(transport);
  // Under load (npm test on two cores) spawning tsx and the first import of the CLI take several seconds.
}, 90_000);

afterAll(async () => {
  await client?.close();
  await world?.close();
});

describe("checkpost mcp over stdio (SDK client)", () => {
  it("lists the six tools, each with a description and an input schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["checkpoint_resume", "checkpoint_save", "health_report", "session_status", "snapshot_restore", "snapshot_save"]);
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(100);
      expect(t.inputSchema.type).toBe("object");
    }
    const save = tools.find((t) => t.name === "checkpoint_save");
    expect(save?.inputSchema.required).toEqual(expect.arrayContaining(["agent", "session", "phase", "data"]));
    expect(client.getInstructions()).toMatch(/checkpoint_resume/);
    expect(serverLog.join("")).toMatch(/serving checkpoint_resume, checkpoint_save/);
  });

  it("a fresh agent resumes at start, with the CLI's note on the agents that have checkpoints", async () => {
    const r = await call("checkpoint_resume", { agent: "mcp-worker", session: "fresh" });
    expect(r.isError).toBeFalsy();
    expect(answer(r)).toMatchObject({ resume_point: "start", phase: "fresh_start", state: {}, checkpoint: null });
    expect(texts(r)[1]).toBe((await cli(["resume", "--agent", "mcp-worker", "--session", "fresh"])).err);
    expect(texts(r)[1]).toMatch(/no checkpoint for mcp-worker in session fresh; known agents:/);
  });

  it("a bad call answers isError with the message, and the same server then takes the good call", async () => {
    // Refused by the schema: no agent, data not an object.
    const noAgent = await call("checkpoint_save", { session: "s1", phase: "p", data: "not an object" });
    expect(noAgent.isError).toBe(true);
    expect(texts(noAgent).join("\n")).toMatch(/agent/);
    expect(texts(noAgent).join("\n")).toMatch(/data/);
    // Accepted by the schema, refused by the CLI: the tool answers the CLI's own message, word for word.
    const twoLines = await call("checkpoint_save", { agent: "mcp-worker", session: "s1", phase: "tests\ngreen", data: {} });
    expect(twoLines.isError).toBe(true);
    const shell = await cli(["save", "--agent=mcp-worker", "--session=s1", "--phase=tests\ngreen", "--data={}"]);
    expect(shell.code).toBe(1);
    expect(texts(twoLines)).toEqual([shell.err]);
    expect(shell.err).toMatch(/phase must be a single line/);
    // A tool that does not exist: an error result too, and the server goes on.
    const unknown = await call("checkpoint_delete", {});
    expect(unknown.isError).toBe(true);

    const ok = await call("checkpoint_save", { agent: "mcp-worker", session: "s1", phase: "tests_green", data: { commit_sha: "abc" } });
    expect(ok.isError).toBeFalsy();
    expect(answer(ok)).toMatchObject({ issue: world.issue, kind: "checkpoint", agent: "mcp-worker", session: "s1", phase: "tests_green", data: { commit_sha: "abc" }, directive: null });
    expect(answer(ok)["comment_id"]).toEqual(expect.any(Number));
  });

  it("a resume of a 2 KiB state answers the CLI's JSON in under 4 KiB", async () => {
    // A realistic state: file paths, decisions and to-dos, 2 KiB of JSON.
    const todo = Array.from({ length: 40 }, (_, i) => `src/module-${i}/file-${i}.ts: refactor step ${i} done`);
    const state: Record<string, unknown> = { branch: "feat/mcp", commit_sha: "0123456789abcdef0123456789abcdef01234567", todo };
    while (JSON.stringify(state).length < 2048) (state["todo"] as string[]).push("one more thing to check before the pull request");
    expect(JSON.stringify(state).length).toBeGreaterThanOrEqual(2048);
    const saved = await call("checkpoint_save", { agent: "mcp-worker", session: "big", phase: "refactor_half_done", data: state });
    expect(saved.isError).toBeFalsy();

    const r = await call("checkpoint_resume", { agent: "mcp-worker", session: "big" });
    expect(r.isError).toBeFalsy();
    const bytes = Buffer.byteLength(texts(r).join(""));
    expect(bytes).toBeLessThan(4096);
    expect(answer(r)).toMatchObject({ resume_point: "refactor_half_done", phase: "refactor_half_done", state, mapped: false, directive: null, not_used: [] });
    // The CLI's answer for the same call, but for the moment the liveness was measured.
    const shell = await cli(["resume", "--agent", "mcp-worker", "--session", "big"]);
    const { liveness: _a, ...viaMcp } = answer(r);
    const { liveness: _b, ...viaCli } = JSON.parse(shell.out) as Record<string, unknown>;
    expect(viaMcp).toEqual(viaCli);
  });

  it("resume then save continues the fence, as the CLI does on one machine", async () => {
    const r = await call("checkpoint_resume", { agent: "mcp-worker", session: "s1", take_over: true });
    const { epoch, next_seq } = answer(r) as { epoch: number; next_seq: number };
    expect(answer(r)).toMatchObject({ phase: "tests_green", takeover_comment_id: expect.any(Number) });
    const s = await call("checkpoint_save", { agent: "mcp-worker", session: "s1", phase: "pr_opened", data: { pr: 12 } });
    expect(answer(s)).toMatchObject({ epoch, seq: next_seq, phase: "pr_opened" });
    // An epoch below that fence is the CLI's usage error (exit 2), with the values to pass.
    const low = await call("checkpoint_save", { agent: "mcp-worker", session: "s1", phase: "x", data: {}, epoch: 0 });
    expect(low.isError).toBe(true);
    expect(texts(low).join("")).toMatch(new RegExp(`--epoch 0 is below epoch ${epoch}`));
  });

  it('existing: true turns a mistyped agent into an error with the CLI\'s "did you mean"', async () => {
    const r = await call("checkpoint_resume", { agent: "mcp-workr", session: "s1", existing: true });
    expect(r.isError).toBe(true);
    const shell = await cli(["resume", "--agent=mcp-workr", "--session=s1", "--existing"]);
    expect(shell.code).toBe(4);
    expect(texts(r)).toEqual([shell.err, shell.out]);
    expect(texts(r)[0]).toMatch(/did you mean mcp-worker\?/);
  });

  it("calls sent together run one at a time, in the order they were sent", async () => {
    const phases = ["step_1", "step_2", "step_3"];
    const answers = await Promise.all(phases.map((phase) => call("checkpoint_save", { agent: "mcp-worker", session: "together", phase, data: { phase } })));
    expect(answers.map((a) => a.isError ?? false)).toEqual([false, false, false]);
    const ids = answers.map((a) => answer(a)["comment_id"] as number);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(answer(await call("checkpoint_resume", { agent: "mcp-worker", session: "together" }))).toMatchObject({ phase: "step_3", state: { phase: "step_3" } });
  });

  it("health_report and session_status answer what the CLI prints", async () => {
    const h = await call("health_report", { agent: "mcp-worker", session: "s1", metrics: { tests_passing: 41 } });
    expect(h.isError).toBeFalsy();
    expect(answer(h)).toMatchObject({ kind: "health", agent: "mcp-worker", session: "s1", status: "Active", metrics: { tests_passing: 41 } });

    const st = await call("session_status", {});
    expect(st.isError).toBeFalsy();
    const snap = answer(st) as { entries: { agent: string; session: string }[]; repo: string; issue: number };
    expect(snap).toMatchObject({ repo: "agent/work", issue: world.issue });
    expect(
      snap.entries
        .filter((e) => e.agent === "mcp-worker")
        .map((e) => e.session)
        .sort(),
    ).toEqual(["big", "s1", "together"]);
    const shell = await cli(["status", "--json"]);
    expect(Object.keys(snap).sort()).toEqual(Object.keys(JSON.parse(shell.out) as object).sort());
    // `status` exits 3 when something needs attention; the tool says so in a last line, not as an error.
    expect(texts(st).length === 2).toBe(shell.code === 3);
  });

  it("snapshot_save and snapshot_restore round-trip a transcript kept outside the server's folder", async () => {
    // The agent's own files live where its runtime keeps them, not in the folder the client started the server in.
    const sessions = mkdtempSync(join(tmpdir(), "checkpost-mcp-sessions-"));
    const transcript = join(sessions, "abc.jsonl");
    const line = (i: number) => `${JSON.stringify({ turn: i, text: `message ${i}` })}\n`;
    writeFileSync(transcript, Array.from({ length: 200 }, (_, i) => line(i)).join(""));
    const S = { agent: "snap-worker", session: "s1" };

    const first = await call("snapshot_save", { ...S, folder: sessions, paths: [transcript] });
    expect(first.isError, texts(first).join("\n")).toBeFalsy();
    expect(answer(first)).toMatchObject({ changed: true, agent: "snap-worker", session: "s1", files: 1, bytes: statSync(transcript).size, sealed: null });
    // Without CHECKPOST_STATE_KEY the CLI warns that the transcript is readable; the tool passes it on.
    expect(texts(first)[1]).toMatch(/CHECKPOST_STATE_KEY is not set/);

    appendFileSync(transcript, line(200));
    const tail = await call("snapshot_save", { ...S, folder: sessions, paths: ["abc.jsonl"] });
    expect(answer(tail)).toMatchObject({ changed: true, bytes: statSync(transcript).size });
    expect(answer(tail)["uploaded"]).toBeLessThan(statSync(transcript).size);
    const idle = await call("snapshot_save", { ...S, folder: sessions, paths: ["abc.jsonl"] });
    expect(answer(idle)).toMatchObject({ changed: false, uploaded: 0 });

    const into = mkdtempSync(join(tmpdir(), "checkpost-mcp-restore-"));
    const restored = await call("snapshot_restore", { ...S, into });
    expect(restored.isError, texts(restored).join("\n")).toBeFalsy();
    expect(answer(restored)).toMatchObject({ comment_id: answer(tail)["comment_id"], files: [{ path: "abc.jsonl", action: "written" }] });
    expect(readFileSync(join(into, "abc.jsonl"))).toEqual(readFileSync(transcript));
    // The CLI's answer for the same call (a second restore into the same folder: nothing to write).
    const again = await call("snapshot_restore", { ...S, into });
    expect(texts(again)).toEqual([(await cli(["snapshot", "restore", "--agent=snap-worker", "--session=s1", `--into=${into}`])).out]);
    expect(answer(again)).toMatchObject({ files: [{ path: "abc.jsonl", action: "same" }] });
  });

  it("snapshot tools answer the CLI's errors as isError, and the server goes on", async () => {
    const folder = mkdtempSync(join(tmpdir(), "checkpost-mcp-snap-"));
    const outside = join(tmpdir(), "not-under-the-folder.jsonl");
    const save = await call("snapshot_save", { agent: "snap-worker", session: "s2", folder, paths: [outside] });
    expect(save.isError).toBe(true);
    expect(texts(save).join("\n")).toMatch(/a snapshot holds files under the working directory/);
    const nothing = await call("snapshot_save", { agent: "snap-worker", session: "s2" });
    expect(nothing.isError).toBe(true);
    const shell = await cli(["snapshot", "save", "--agent=snap-worker", "--session=s2", "--"]);
    expect(shell.code).toBe(2);
    expect(texts(nothing)).toEqual([shell.err]);
    // No snapshot yet: not an error, an answer with comment_id null and the CLI's note.
    const none = await call("snapshot_restore", { agent: "nobody", session: "s2", into: join(folder, "restored") });
    expect(none.isError).toBeFalsy();
    expect(answer(none)).toMatchObject({ comment_id: null, files: [] });
    expect(texts(none)[1]).toMatch(/has no snapshot yet/);
    expect((await call("checkpoint_resume", { agent: "mcp-worker", session: "s1" })).isError).toBeFalsy();
  });
});

describe("checkpost mcp's process", () => {
  it("answers the call sent just before stdin closed, then exits 0, writing nothing but the protocol on stdout", async () => {
    const child = spawn(process.execPath, serverArgs, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      // A call that reads Forgejo, so it is still running when stdin ends.
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "checkpoint_resume", arguments: { agent: "mcp-worker", session: "s1" } } },
    ];
    child.stdin.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
    expect(await exited).toBe(0);
    const lines = Buffer.concat(out)
      .toString()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; result: { content?: { text: string }[]; isError?: boolean } });
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1]?.result.isError).toBeUndefined();
    expect(JSON.parse(lines[1]?.result.content?.[0]?.text ?? "")).toMatchObject({ issue: world.issue, resume_point: expect.any(String) });
  });
});
