import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { ExitError } from "../errors.ts";
import { EXIT } from "./exit-codes.ts";

/**
 * The value of `--env-file <file>` / `--env-file=<file>` in argv, read before commander runs because
 * the environment must be complete before any command builds its context. Stops at `--`.
 */
export function envFileFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--") return undefined;
    if (a === "--env-file") return argv[i + 1];
    if (a.startsWith("--env-file=")) return a.slice("--env-file=".length);
  }
  return undefined;
}

/**
 * The environment a command sees: the process environment, filled in from `--env-file <file>` or, without
 * it, from `.env` in the working directory when there is one. A variable already set (and not empty: an
 * empty value means unset everywhere in checkpost) wins over the file, as with `node --env-file`.
 * Parsed with Node's own dotenv parser (util.parseEnv, Node 20.12+; engines asks for 20.19).
 */
export function withEnvFile(env: NodeJS.ProcessEnv, cwd: string, flag: string | undefined): NodeJS.ProcessEnv {
  const path = resolve(cwd, flag ?? ".env");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    // No .env is the common case; a named --env-file that cannot be read is a mistake to report.
    if (flag === undefined && (e as NodeJS.ErrnoException).code === "ENOENT") return env;
    // Its own exit code (5), so a script can tell "the settings file is missing" from a failed command.
    throw new ExitError(EXIT.envFile, `cannot read ${flag === undefined ? ".env" : `--env-file ${flag}`} (${path}): ${(e as Error).message}`);
  }
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [k, v] of Object.entries(parseEnv(text))) if (merged[k] === undefined || merged[k] === "") merged[k] = v;
  return merged;
}
