import type { FileEntry } from "./manifest.ts";

/** What a restore does with one file, and why. */
export type RestoreAction = { kind: "write" } | { kind: "same" } | { kind: "keep"; why: string };

/**
 * Never clobber newer local state: a local file that extends the snapshot's, or that changed after the
 * snapshot was taken, is kept unless `force`. A missing or older, different file is written.
 */
export function decideRestore(
  entry: Pick<FileEntry, "size" | "sha256">,
  local: { size: number; sha256: string; prefixSha256: string | null; mtimeMs: number } | null,
  o: { snapshotTakenMs: number; force: boolean },
): RestoreAction {
  if (!local) return { kind: "write" };
  if (local.size === entry.size && local.sha256 === entry.sha256) return { kind: "same" };
  if (o.force) return { kind: "write" };
  if (local.size > entry.size && local.prefixSha256 === entry.sha256) return { kind: "keep", why: `it extends the snapshot (${local.size} bytes locally, ${entry.size} in the snapshot)` };
  if (local.mtimeMs > o.snapshotTakenMs) return { kind: "keep", why: "it changed after the snapshot was taken" };
  return { kind: "write" };
}
