import { isAbsolute, relative, resolve, sep } from "node:path";
import { CheckpostError } from "../errors.ts";
import { SnapshotPathSchema } from "./core/manifest.ts";

/** A path given to `snapshot save`, as the manifest stores it: relative to `cwd`, "/"-separated, inside it. */
export function storedPath(cwd: string, given: string): string {
  const rel = relative(cwd, resolve(cwd, given));
  const posix = rel.split(sep).join("/");
  if (rel === "" || isAbsolute(rel) || !SnapshotPathSchema.safeParse(posix).success)
    throw new CheckpostError(`${given}: a snapshot holds files under the working directory (${cwd}); run the command from a folder that holds ${given}`);
  return posix;
}

/** Where a stored path goes under `into` (the schema already refused "..", absolute and empty parts). */
export function restoredPath(into: string, stored: string): string {
  return resolve(into, ...stored.split("/"));
}
