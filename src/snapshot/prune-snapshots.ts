import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import { HostError } from "../errors.ts";
import type { Manifest } from "./core/manifest.ts";
import type { StateKey } from "./core/state-key.ts";
import { type PartsIndex, loadManifest } from "./manifest-io.ts";
import type { SnapshotComment, SnapshotHistory } from "./snapshot-history.ts";

/**
 * Retention: keep the newest `keep` snapshots of the agent+session (the one just posted first) and the
 * parts comments their manifests use (an append-only file's first chunks stay in use for as long as the
 * file grows); delete older [SNAPSHOT] comments and parts comments no kept snapshot uses. Parts comments
 * newer than the one just written are left alone: another save may be writing them.
 */
export async function pruneSnapshots(o: {
  api: IssueHost;
  repo: RepoRef;
  keep: number;
  mine: { snap: SnapshotComment; manifest: Manifest };
  history: SnapshotHistory;
  keys: readonly StateKey[];
  parts: PartsIndex;
}): Promise<number> {
  const older = o.history.snapshots.filter((s) => s.commentId < o.mine.snap.commentId);
  const kept = older.filter((s) => !s.zombie).slice(0, Math.max(0, o.keep - 1));
  const drop = older.filter((s) => !kept.includes(s));
  const newestParts = o.mine.snap.snapshot.manifestComment;
  const staleParts = o.history.parts.filter((p) => p.commentId < newestParts);
  if (drop.length === 0 && staleParts.length === 0) return 0;
  const used = new Set<number>([newestParts]);
  const use = (m: Manifest) => {
    for (const f of m.files) for (const c of f.chunks) used.add(c.c);
  };
  use(o.mine.manifest);
  for (const s of kept) {
    used.add(s.snapshot.manifestComment);
    // A kept snapshot whose manifest cannot be read keeps everything: pruning must never make things worse.
    try {
      use(await loadManifest(o.api, s, o.keys, o.parts));
    } catch {
      return 0;
    }
  }
  let deleted = 0;
  const del = async (id: number) => {
    try {
      await o.api.deleteRecord(o.repo, id);
      deleted++;
    } catch (e) {
      if (!(e instanceof HostError && e.reason === "not-found")) throw e;
    }
  };
  // The [SNAPSHOT] comments first: a snapshot is never left naming parts that are gone.
  for (const s of drop) await del(s.commentId);
  for (const p of staleParts) if (!used.has(p.commentId)) await del(p.commentId);
  return deleted;
}
