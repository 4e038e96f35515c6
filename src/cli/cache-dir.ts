import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The CLI's per-machine folder: CHECKPOST_CACHE_DIR, else $XDG_CACHE_HOME/checkpost, else ~/.cache/checkpost.
 * Its own module (no zod) because the bin's start-up path needs it before anything else is loaded.
 */
export function cliCacheDir(dir: string | undefined, env: NodeJS.ProcessEnv): string {
  return dir ?? join(env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "checkpost");
}
