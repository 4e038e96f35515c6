import { describe, expect, it } from "vitest";
import type { CliIo } from "../../../src/cli/io.ts";
import type { CliRoot } from "../../../src/cli/context.ts";
import { runCliWith } from "../../../src/cli/run-cli.ts";
import { MCP_TOOLS } from "../../../src/mcp/mcp-tools.ts";
import type { McpTool } from "../../../src/mcp/mcp-tools.ts";
import { badArguments, toolAnswer } from "../../../src/mcp/tool-answer.ts";

const byName = (name: string): McpTool => {
  const t = MCP_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("did not throw");
};

describe("the MCP tools' CLI calls", () => {
  it.each([
    ["checkpoint_save", { agent: "w", session: "s1", phase: "tests_green", data: { sha: "abc" } }, ["save", "--agent=w", "--session=s1", "--phase=tests_green", '--data={"sha":"abc"}']],
    [
      "checkpoint_save",
      { agent: "w", session: "s1", phase: "p", data: {}, seq: 3, epoch: 0, map: "implementation-worker" },
      ["save", "--agent=w", "--session=s1", "--phase=p", "--data={}", "--seq=3", "--epoch=0", "--map=implementation-worker"],
    ],
    ["checkpoint_resume", { agent: "w", session: "s1" }, ["resume", "--agent=w", "--session=s1"]],
    ["checkpoint_resume", { agent: "w", session: "s1", take_over: true, map: "m.json" }, ["resume", "--agent=w", "--session=s1", "--map=m.json", "--take-over"]],
    ["checkpoint_resume", { agent: "w", session: "s1", take_over: false }, ["resume", "--agent=w", "--session=s1"]],
    ["checkpoint_resume", { agent: "w", session: "s1", existing: true }, ["resume", "--agent=w", "--session=s1", "--existing"]],
    ["health_report", { agent: "w", session: "s1", metrics: { q: 1 }, status: "Blocked: review" }, ["health", "--agent=w", "--session=s1", '--metrics={"q":1}', "--status=Blocked: review"]],
    ["session_status", {}, ["status", "--json"]],
    [
      "snapshot_save",
      { agent: "w", session: "s1", paths: ["/t/a.jsonl", "-odd.jsonl"], sqlite: ["/t/s.db", "/t/u.db"], force: true },
      ["snapshot", "save", "--agent=w", "--session=s1", "--sqlite=/t/s.db", "--sqlite=/t/u.db", "--force", "--", "/t/a.jsonl", "-odd.jsonl"],
    ],
    ["snapshot_restore", { agent: "w", session: "s1", into: "/t/out" }, ["snapshot", "restore", "--agent=w", "--session=s1", "--into=/t/out"]],
    ["snapshot_restore", { agent: "w", session: "s1", into: "/t/out", force: true }, ["snapshot", "restore", "--agent=w", "--session=s1", "--into=/t/out", "--force"]],
  ])("%s %j → checkpost %j", (name, args, argv) => {
    expect(byName(name).call(args)).toEqual({ argv });
  });

  it("keeps a value that starts with a dash as the flag's value, not another option", () => {
    expect(byName("checkpoint_resume").call({ agent: "--issue", session: "-1" }).argv).toEqual(["resume", "--agent=--issue", "--session=-1"]);
  });

  it("runs snapshot_save in its folder, so paths are stored relative to it", () => {
    expect(byName("snapshot_save").call({ agent: "w", session: "s1", folder: "/home/a/.agent/sessions", paths: ["abc.jsonl"] })).toEqual({
      argv: ["snapshot", "save", "--agent=w", "--session=s1", "--", "abc.jsonl"],
      cwd: "/home/a/.agent/sessions",
    });
  });

  it("refuses what the schema refuses, naming the argument", () => {
    const save = byName("checkpoint_save");
    expect(() => save.call({ agent: "w", session: "s", phase: "p" })).toThrow(/data/);
    const answer = badArguments(
      save,
      thrown(() => save.call({ agent: "w", session: "s", phase: "p", data: {}, seq: -1 })),
    );
    expect(answer.isError).toBe(true);
    expect(answer.texts.join("")).toMatch(/checkpoint_save: invalid arguments:[\s\S]*seq/);
    expect(() => byName("snapshot_save").call({ agent: "w", session: "s", paths: "t.jsonl" })).toThrow(/paths/);
  });

  it("every tool has a title, a description a model can act on, and hints", () => {
    expect(MCP_TOOLS.map((t) => t.name).sort()).toEqual(["checkpoint_resume", "checkpoint_save", "health_report", "session_status", "snapshot_restore", "snapshot_save"]);
    for (const t of MCP_TOOLS) {
      expect(t.title.length, t.name).toBeGreaterThan(5);
      expect(t.description.length, t.name).toBeGreaterThan(150);
    }
    expect(byName("session_status").hints.readOnlyHint).toBe(true);
    expect(byName("snapshot_restore").hints.destructiveHint).toBe(true);
  });
});

describe("a tool's answer from what the CLI printed", () => {
  const resume = byName("checkpoint_resume");
  const status = byName("session_status");

  it("is the stdout JSON, then any stderr note, on exit 0", () => {
    expect(toolAnswer(resume, { code: 0, out: '{"resume_point":"start"}\n', err: "" })).toEqual({ isError: false, texts: ['{"resume_point":"start"}'] });
    expect(toolAnswer(resume, { code: 0, out: "{}", err: "checkpost: no checkpoint for w" })).toEqual({ isError: false, texts: ["{}", "checkpost: no checkpoint for w"] });
  });

  it("is isError with the CLI's message on a failing exit code", () => {
    expect(toolAnswer(resume, { code: 1, out: "", err: "checkpost: no token: set FORGEJO_TOKEN" })).toEqual({ isError: true, texts: ["checkpost: no token: set FORGEJO_TOKEN"] });
    expect(toolAnswer(resume, { code: 2, out: "", err: "" })).toEqual({ isError: true, texts: ["checkpost: checkpoint_resume failed with exit code 2"] });
    // Exit 3 is an answer only for status.
    expect(toolAnswer(resume, { code: 3, out: "{}", err: "" }).isError).toBe(true);
    // The message first, then what the failed call printed on stdout.
    expect(toolAnswer(resume, { code: 4, out: '{"resume_point":"start"}', err: "checkpost: no checkpoint for w" })).toEqual({
      isError: true,
      texts: ["checkpost: no checkpoint for w", '{"resume_point":"start"}'],
    });
  });

  it("says in a last line that status found something needing attention (exit 3), without isError", () => {
    const a = toolAnswer(status, { code: 3, out: '{"entries":[]}', err: "" });
    expect(a.isError).toBe(false);
    expect(a.texts).toHaveLength(2);
    expect(a.texts[1]).toMatch(/exit 3: something needs a person's attention/);
    expect(toolAnswer(status, { code: 0, out: '{"entries":[]}', err: "" }).texts).toHaveLength(1);
  });
});

describe("checkpost mcp without the SDK", () => {
  it("names the package to install, not a module-resolution error", async () => {
    const err: string[] = [];
    const io: CliIo = { out: () => undefined, err: (t) => err.push(t), readStdin: async () => "", env: {}, cwd: process.cwd() };
    const notInstalled = Object.assign(new Error("Cannot find package '@modelcontextprotocol/sdk' imported from /x/dist/cli-bundle/serve-mcp.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const never = () => Promise.reject(new Error("not used"));
    const root: CliRoot = { context: never, settings: never, host: never, openBotStore: never, forge: never, snapshotSettings: never, mcp: () => Promise.reject(notInstalled) };
    expect(await runCliWith(["mcp"], io, root)).toBe(1);
    expect(err.join("")).toBe("checkpost: this command needs the package @modelcontextprotocol/sdk, which checkpost installs only on request; in your project run: npm i @modelcontextprotocol/sdk");
  });
});
