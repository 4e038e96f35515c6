import * as z from "zod";
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
 * `isError` with the CLI's own message, so the model reads what a person at a shell would.
 */
export function toolAnswer(tool: McpTool, run: CliRun): ToolAnswer {
  const out = run.out.trim();
  const err = run.err.trim();
  const texts = [out, err].filter((t) => t !== "");
  if (!tool.okCodes.includes(run.code)) return { isError: true, texts: texts.length ? texts : [`checkpost: ${tool.name} failed with exit code ${run.code}`] };
  if (run.code === 3) texts.push(ATTENTION);
  return { isError: false, texts };
}

/** The answer to arguments the tool's schema refuses: which argument, and why. */
export function badArguments(tool: McpTool, e: unknown): ToolAnswer {
  const why = e instanceof z.ZodError ? z.prettifyError(e) : e instanceof Error ? e.message : String(e);
  return { isError: true, texts: [`checkpost: ${tool.name}: invalid arguments:\n${why}`] };
}
