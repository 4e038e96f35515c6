// `checkpost mcp`'s server: the tools of ./mcp-tools.ts on MCP's stdio transport, built with the official
// SDK. Each call becomes the CLI call it stands for, run in this process through `run` (given by the
// composition root, src/app/cli-mcp.ts), so the answer is what the CLI prints by construction.
// The SDK is an optional peer dependency: this module is imported only by `checkpost mcp`.
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type CliCall, MCP_TOOLS } from "./mcp-tools.ts";
import { type CliRun, type ToolAnswer, badArguments, toolAnswer } from "./tool-answer.ts";
import { CONTROLS } from "../protocol/index.ts";

export interface ServeMcpOptions {
  /** Run one CLI call in this process and return what it printed. */
  run(call: CliCall): Promise<CliRun>;
  /** checkpost's version, which the server reports to the client. */
  version: string;
  /** The protocol's channel: the process's stdin and stdout. Nothing else may write to `stdout`. */
  stdin: Readable;
  stdout: Writable;
  /** Where the server says what it does (stderr, which MCP clients keep as the server's log). */
  log(line: string): void;
}

/** Said to the client at start-up; clients may show it to the model beside the tools' descriptions. */
const INSTRUCTIONS =
  "checkpost keeps your progress on a Forgejo issue so that work survives a crash or a restart. " +
  "Start every task with checkpoint_resume and continue from its resume_point and state. " +
  "After each step that would be costly to redo, call checkpoint_save with the phase just finished and the data needed to continue. " +
  `Obey a directive (${CONTROLS.directives.join(", ")}) that checkpoint_resume or checkpoint_save returns.`;

const result = (a: ToolAnswer) => ({ content: a.texts.map((text) => ({ type: "text" as const, text })), ...(a.isError ? { isError: true } : {}) });

/**
 * Serve until the client closes stdin (or the transport fails), then return once the calls in flight
 * have answered. Calls run one at a time, in the order they arrive: the CLI's per-machine memory (the
 * writer fence `resume` takes, the session issue's number) is then read and written as by one agent
 * running the CLI step after step.
 */
export async function serveMcp(o: ServeMcpOptions): Promise<void> {
  const server = new McpServer({ name: "checkpost", version: o.version }, { instructions: INSTRUCTIONS });
  let queue: Promise<unknown> = Promise.resolve();
  const serial = (call: CliCall): Promise<CliRun> => {
    const p = queue.then(() => o.run(call));
    queue = p.catch(() => undefined);
    return p;
  };
  // Calls being handled, from the SDK's call to the handler to its return: the end of stdin waits for them.
  let inFlight = 0;
  let whenIdle: (() => void) | undefined;
  const settled = () => {
    if (inFlight === 0) whenIdle?.();
  };
  for (const tool of MCP_TOOLS) {
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, ...tool.hints } }, async (args) => {
      inFlight++;
      try {
        // The SDK checks the arguments against the schema first; checked again here, so that a client or an
        // SDK version that lets a bad call through still gets a tool error naming the argument.
        let call: CliCall;
        try {
          call = tool.call(args);
        } catch (e) {
          return result(badArguments(tool, e));
        }
        try {
          return result(toolAnswer(tool, await serial(call)));
        } catch (e) {
          // runCli reports every failure as an exit code; this is a bug, still answered as the call's error.
          return result({ isError: true, texts: [`checkpost: ${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`] });
        }
      } finally {
        inFlight--;
        settled();
      }
    });
  }
  const transport = new StdioServerTransport(o.stdin, o.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  server.server.onerror = (e) => o.log(`checkpost mcp: ${e.message}`);
  // The SDK's transport does not watch for the end of stdin; the client closing it is the end of the session.
  // A call the client sent just before closing is still answered: wait (after the SDK has dispatched what
  // it read) until no call is in flight, and close only after the last answer has been handed to stdout.
  let ending = false;
  const ended = () => {
    if (ending) return;
    ending = true;
    setImmediate(() => {
      whenIdle = () => {
        whenIdle = undefined;
        setImmediate(() => void server.close());
      };
      settled();
    });
  };
  o.stdin.once("end", ended);
  o.stdin.once("close", ended);
  await server.connect(transport);
  o.log(`checkpost mcp ${o.version}: serving ${MCP_TOOLS.map((t) => t.name).join(", ")} on stdio`);
  await closed;
  await queue;
}
