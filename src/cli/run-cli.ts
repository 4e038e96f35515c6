import { CommanderError } from "commander";
import { CheckpostError, ExitError } from "../errors.ts";
import { envFileFlag, withEnvFile } from "./env-file.ts";
import type { CliRoot } from "./context.ts";
import type { CliIo } from "./io.ts";
import { installFor, missingOptionalPackage } from "./optional-packages.ts";
import { buildProgram } from "./program.ts";

/**
 * Run the CLI and return its exit code: 0 ok, 1 failure, 2 usage, 3 `status` found something that
 * needs attention. Errors are printed as their message; the stack only with --debug. The commands get
 * their settings, stores and clients from `root` (src/app/cli-root.ts); src/app/cli.ts wires it.
 */
export async function runCliWith(argv: string[], io: CliIo, root: CliRoot): Promise<number> {
  const debug = argv.includes("--debug");
  try {
    // .env (or --env-file) fills in what the environment does not set, for every command.
    const env = io.envComplete === true ? io.env : withEnvFile(io.env, io.cwd, envFileFlag(argv));
    await buildProgram({ ...io, env }, root).parseAsync(argv, { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help/version exit 0; commander already printed its message.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof ExitError) {
      if (e.message && e.message !== `exit ${e.code}`) io.err(`checkpost: ${e.message}`);
      return e.code;
    }
    const missing = missingOptionalPackage(e);
    if (missing !== undefined) {
      // `npm i checkpost` leaves the bot's packages and the MCP SDK out (docs/install.md): say which to add.
      io.err(`checkpost: this command needs the package ${missing}, which checkpost installs only on request; in your project run: ${installFor(missing)}`);
      return 1;
    }
    const known = e instanceof CheckpostError;
    io.err(`checkpost: ${e instanceof Error ? e.message : String(e)}`);
    if (debug && e instanceof Error && e.stack) io.err(e.stack);
    else if (!known) io.err("(this looks like a bug; rerun with --debug for the stack trace)");
    return 1;
  }
}
