// The CLI wired with its composition root: what cli-main.ts runs, and what tests run in-process.
import type { CliIo } from "../cli/io.ts";
import { runCliWith } from "../cli/run-cli.ts";
import { cliRoot } from "./cli-root.ts";

/** Run the CLI and return its exit code (src/cli/run-cli.ts says which). */
export function runCli(argv: string[], io: CliIo): Promise<number> {
  return runCliWith(argv, io, cliRoot());
}
