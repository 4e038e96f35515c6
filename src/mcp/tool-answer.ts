import * as z from "zod";
import { EXIT } from "../cli/exit-codes.ts";
import type { McpTool } from "./mcp-tools.ts";

/** What one in-process CLI run printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A tool's answer: the texts of its result, and whether the call failed (MCP's `isError`). */
export interface ToolAnswer {
  isError: boolean;
  texts: string[];
}

/** What `status` exits 3 for (README, "Exit codes"), said to the model since it sees no exit code. */
const ATTENTION = "checkpost: exit 3: something needs a person's attention (an agent silent or stale, a pause, an anomaly, a refused checkpoint, or a health status that is not fine)";

/**
 * The answer to a call, from what the CLI printed: its stdout as is (one compact JSON line), then
 * anything it said on stderr (a warning, the "no checkpoint; known agents" note). A failing exit code is
 * `isError` with the CLI's own message (then any stdout), so the model reads what a person at a shell would.
 */
export function toolAnswer(tool: McpTool, run: CliRun): ToolAnswer {
  const out = run.out.trim();
  const err = run.err.trim();
  if (!tool.okCodes.includes(run.code)) {
    // The message first: what a failed call printed on stdout before failing (`resume --existing`'s fresh start) is not the answer.
    const texts = [err, out].filter((t) => t !== "");
    return { isError: true, texts: texts.length ? texts : [`checkpost: ${tool.name} failed with exit code ${run.code}`] };
  }
  const texts = [out, err].filter((t) => t !== "");
  if (run.code === EXIT.attention) texts.push(ATTENTION);
  return { isError: false, texts };
}

/** The answer to arguments the tool's schema refuses: which argument, and why. */
export function badArguments(tool: McpTool, e: unknown): ToolAnswer {
  const why = e instanceof z.ZodError ? z.prettifyError(e) : e instanceof Error ? e.message : String(e);
  return { isError: true, texts: [`checkpost: ${tool.name}: invalid arguments:\n${why}`] };
}
