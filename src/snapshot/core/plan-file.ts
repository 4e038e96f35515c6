import type { FileEntry } from "./manifest.ts";

/** What a local file is against its stored version. */
export type FilePlan =
  | { kind: "unchanged" }
  /** Only bytes [from, size) are new; the first `from` bytes are the stored file (their digest matched). */
  | { kind: "extends"; from: number }
  /** No stored version (or --force, or an SQLite backup): every chunk not already stored is uploaded. */
  | { kind: "new" }
  | { kind: "divergent"; why: string };

/**
 * The divergence decision. `local` is the file now: its size, its whole digest and the digest of its
 * first `stored.size` bytes (null when it is shorter). A file that is not append-only (an SQLite backup)
 * is replaced whole, never divergent.
 */
export function planFile(stored: FileEntry | undefined, local: { size: number; sha256: string; prefixSha256: string | null }, o: { appendOnly: boolean; force: boolean }): FilePlan {
  if (stored && stored.size === local.size && stored.sha256 === local.sha256) return { kind: "unchanged" };
  if (!stored || o.force || !o.appendOnly) return { kind: "new" };
  if (local.size < stored.size) return { kind: "divergent", why: `shortened from ${stored.size} to ${local.size} bytes` };
  if (local.prefixSha256 !== stored.sha256) return { kind: "divergent", why: `its first ${stored.size} bytes were rewritten` };
  return { kind: "extends", from: stored.size };
}

/** [start, end) cut into pieces of at most `chunkBytes`. */
export function chunkRanges(start: number, end: number, chunkBytes: number): [number, number][] {
  const out: [number, number][] = [];
  for (let at = start; at < end; at += chunkBytes) out.push([at, Math.min(end, at + chunkBytes)]);
  return out;
}
