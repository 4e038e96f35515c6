import { chmodSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The CLI's per-machine folder: CHECKPOST_CACHE_DIR, else $XDG_CACHE_HOME/checkpost, else ~/.cache/checkpost.
 * Its own module (no zod) because the bin's start-up path needs it before anything else is loaded.
 */
export function cliCacheDir(dir: string | undefined, env: NodeJS.ProcessEnv): string {
  return dir ?? join(env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "checkpost");
}

/** Folders already judged by this process: whether their files may be read (see cacheDirUsable). */
const judged = new Map<string, boolean>();

/**
 * Whether the files of a cache folder may be used. The folder holds what a save and a resume act on
 * (the epoch and Seq taken over, the index comment to read, the session issue's number, V8's code cache),
 * so a folder others may write to lets them plant any of it (issue 28.6). One of the user's own with
 * group or world write is repaired to 0700, said on stderr once, and its files are not used this time
 * (they may have been planted before); one owned by someone else is refused (true: usable, or missing).
 */
export function cacheDirUsable(dir: string, warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): boolean {
  const known = judged.get(dir);
  if (known !== undefined) return known;
  let ok = true;
  try {
    const st = statSync(dir);
    const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
    if (!mine) {
      ok = false;
      warn(`checkpost: the cache folder ${dir} belongs to another user: not used (set CHECKPOST_CACHE_DIR to a folder of your own)`);
    } else if ((st.mode & 0o022) !== 0) {
      ok = false;
      chmodSync(dir, 0o700);
      warn(`checkpost: the cache folder ${dir} was writable by others (mode ${(st.mode & 0o777).toString(8)}): made 0700; its files were not used this time`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  judged.set(dir, ok);
  return ok;
}
