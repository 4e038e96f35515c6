// `checkpost mcp`, wired in the composition root: the MCP server (src/mcp/) runs each tool call as the
// CLI call it stands for, in this process, with the CLI's own root and stdout/stderr captured.
import { resolve } from "node:path";
import type { CliRoot, McpFlags } from "../cli/context.ts";
import type { CliIo } from "../cli/io.ts";
import { nodeHttpFetch } from "../cli/node-http-fetch.ts";
import { packageVersion } from "../cli/package-version.ts";
import { runCliWith } from "../cli/run-cli.ts";
import { ExitError } from "../errors.ts";
import type { CliCall } from "../mcp/mcp-tools.ts";
import type { CliRun } from "../mcp/tool-answer.ts";
import { cliContext } from "./cli-context.ts";

/**
 * Serve MCP on the process's stdin/stdout until the client closes stdin. Each call runs `runCliWith`
 * with the environment `checkpost mcp` started with, already filled in from .env or --env-file (read
 * once, at start: a call run in another folder does not read that folder's .env), in the server's
 * folder unless the tool names one (snapshot_save's `folder`), and with `--debug` if the server got it.
 * What runs in-process is safe to repeat: runCliWith returns the exit code and never exits, each call
 * builds its own commander program, store and settings (the per-machine files are read afresh), and
 * only the HTTP client's keep-alive sockets are shared across calls.
 */
export async function mcp(io: CliIo, o: McpFlags, root: CliRoot): Promise<void> {
  const { serveMcp } = await import("../mcp/serve-mcp.ts");
  const fetch = nodeHttpFetch();
  const callRoot: CliRoot = { ...root, context: async (cio, flags) => cliContext(cio, flags, { fetch }) };
  const run = async (call: CliCall): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const callIo: CliIo = {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      // stdin is the protocol's channel; no tool passes `-` for a file, so this is only reached by a bug.
      readStdin: () => Promise.reject(new ExitError(2, "stdin carries the MCP protocol: pass the value itself, not -")),
      env: io.env,
      envComplete: true,
      cwd: call.cwd === undefined ? io.cwd : resolve(io.cwd, call.cwd),
      isTTY: false,
    };
    const code = await runCliWith([...(o.debug ? ["--debug"] : []), ...call.argv], callIo, callRoot);
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  await serveMcp({ run, version: packageVersion(), stdin: process.stdin, stdout: process.stdout, log: (line) => io.err(line) });
}
