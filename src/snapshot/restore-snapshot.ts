import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readdir, rename, rm, utimes } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { SessionStore } from "../session-client/index.ts";
import type { HostAttachment, IssueHost } from "../ports/issue-host.ts";
import type { ChunkRef, FileEntry } from "./core/manifest.ts";
import { decideRestore } from "./core/restore-decision.ts";
import { SnapshotOutOfSyncError } from "./core/snapshot-errors.ts";
import { readFileState } from "./local-file.ts";
import { PartsIndex, chunkFileName, fetchChunk, loadManifest } from "./manifest-io.ts";
import { readSnapshotHistory } from "./snapshot-history.ts";
import { restoredPath } from "./snapshot-paths.ts";
import type { SnapshotSettings } from "./snapshot-settings.ts";
import { createHash } from "node:crypto";

export interface RestoreSnapshotOptions {
  store: SessionStore;
  api: IssueHost;
  agent: string;
  session: string;
  /** Files are written under this folder at the paths they were saved under. */
  into: string;
  /** Overwrite local files that are newer than the snapshot or extend it. */
  force?: boolean;
  settings: SnapshotSettings;
}

export interface RestoredFile {
  path: string;
  /** written: restored; same: already identical; kept: newer local state left alone (see why). */
  action: "written" | "same" | "kept";
  why?: string;
}

export interface RestoreSnapshotResult {
  agent: string;
  session: string;
  /** The [SNAPSHOT] comment restored from, or null when the agent has none (nothing to restore: a fresh start). */
  comment_id: number | null;
  issue: number | null;
  epoch: number | null;
  sealed: string | null;
  bytes: number;
  files: RestoredFile[];
}

/**
 * Restore an agent's newest live snapshot into `into`. Every file to write is downloaded, checked against
 * its content addresses and sha256 and written to a temp file first; only when all of them are whole are
 * they renamed into place, so a failure (a missing part: "out of sync", a wrong key) writes nothing. A local
 * file newer than the snapshot, or that extends it, is kept unless `force`, and named in the answer.
 */
export async function restoreSnapshot(o: RestoreSnapshotOptions): Promise<RestoreSnapshotResult> {
  const hist = await readSnapshotHistory(o.store, o.api, o.agent, o.session, 1);
  const snap = hist.snapshots.find((s) => !s.zombie);
  if (!snap) return { agent: o.agent, session: o.session, comment_id: null, issue: null, epoch: null, sealed: null, bytes: 0, files: [] };
  const keys = [...(o.settings.key ? [o.settings.key] : []), ...o.settings.oldKeys];
  const parts = new PartsIndex(o.api, o.store.repo);
  const m = await loadManifest(o.api, snap, keys, parts);
  const taken = Date.parse(m.created);
  // Every part is looked up before a byte is written: a missing one fails the whole restore.
  const located = new Map<FileEntry, HostAttachment[]>();
  const missing: ChunkRef[] = [];
  for (const f of m.files) {
    const atts: HostAttachment[] = [];
    for (const c of f.chunks) {
      const a = await parts.find(c.c, chunkFileName(c.n));
      if (a) atts.push(a);
      else missing.push(c);
    }
    located.set(f, atts);
  }
  if (missing.length)
    throw new SnapshotOutOfSyncError(
      `out of sync: the snapshot of ${o.agent} (session ${o.session}) in comment ${snap.commentId} of issue #${snap.issue} names ${missing.length} part(s) that are gone ` +
        `(on comment(s) ${[...new Set(missing.map((c) => c.c))].join(", ")}). Nothing was restored. Take a new snapshot with --force from the agent's current files.`,
    );
  const answers: RestoredFile[] = [];
  const toWrite: { f: FileEntry; dest: string; temp: string }[] = [];
  try {
    for (const f of m.files) {
      const dest = restoredPath(o.into, f.path);
      const local = await readFileState(dest, f.size).catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return null;
        throw e;
      });
      const d = decideRestore(f, local, { snapshotTakenMs: taken, force: o.force === true });
      if (d.kind === "same") answers.push({ path: f.path, action: "same" });
      else if (d.kind === "keep") answers.push({ path: f.path, action: "kept", why: d.why });
      else {
        await mkdir(dirname(dest), { recursive: true });
        await removeStaleTemps(dest);
        const temp = join(dirname(dest), `.${basename(dest)}.checkpost-${randomBytes(6).toString("hex")}.tmp`);
        toWrite.push({ f, dest, temp });
        await writeWhole(o.api, f, located.get(f) ?? [], keys, temp);
        answers.push({ path: f.path, action: "written" });
      }
    }
    // All whole: now into place, each by one rename.
    for (const { f, dest, temp } of toWrite) {
      if (f.kind === "sqlite") {
        // A WAL left by the database this one replaces would be replayed into it.
        await rm(`${dest}-wal`, { force: true });
        await rm(`${dest}-shm`, { force: true });
      }
      await rename(temp, dest);
    }
  } catch (e) {
    await Promise.all(toWrite.map(({ temp }) => rm(temp, { force: true })));
    throw e;
  }
  return { agent: o.agent, session: o.session, comment_id: snap.commentId, issue: snap.issue, epoch: m.epoch, sealed: m.key, bytes: m.files.reduce((n, f) => n + f.size, 0), files: answers };
}

/** Temp files a killed restore of `dest` left beside it (never read as the file): removed before writing it again. */
async function removeStaleTemps(dest: string): Promise<void> {
  const prefix = `.${basename(dest)}.checkpost-`;
  const names = await readdir(dirname(dest)).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith(".tmp")).map((n) => rm(join(dirname(dest), n), { force: true })));
}

/** Download, check and write one file to `temp` (fsynced, its mode and mtime as saved). */
async function writeWhole(api: IssueHost, f: FileEntry, atts: HostAttachment[], keys: Parameters<typeof fetchChunk>[3], temp: string): Promise<void> {
  const fh = await open(temp, "wx", 0o600);
  const hash = createHash("sha256");
  try {
    let at = 0;
    for (const [i, c] of f.chunks.entries()) {
      const bytes = await fetchChunk(api, c, atts[i] as HostAttachment, keys);
      hash.update(bytes);
      await fh.write(bytes, 0, bytes.length, at);
      at += bytes.length;
    }
    if (at !== f.size || hash.digest("hex") !== f.sha256)
      throw new SnapshotOutOfSyncError(`out of sync: ${f.path} does not add up to what its manifest says (${at} of ${f.size} bytes, or another digest). Nothing was restored.`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await chmod(temp, f.mode);
  await utimes(temp, new Date(f.mtimeMs), new Date(f.mtimeMs));
}
