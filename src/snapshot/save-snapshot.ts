import type { IssueHost } from "../ports/issue-host.ts";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { systemClock } from "../clock.ts";
import { formatSnapshot, pythonUtcIsoformat } from "../protocol/index.ts";
import type { SessionStore } from "../session-client/index.ts";
import { postExactlyOnce } from "../session-client/post-exactly-once.ts";
import type { ChunkRef, FileEntry, Manifest } from "./core/manifest.ts";
import { manifestBytes } from "./core/manifest.ts";
import { partsCommentBody } from "./core/parts-comment.ts";
import { chunkRanges, planFile } from "./core/plan-file.ts";
import { chunkName, seal } from "./core/seal.ts";
import { SnapshotDivergentError, SnapshotFencedError, SnapshotLimitError, SnapshotOutOfSyncError, SnapshotsOffError } from "./core/snapshot-errors.ts";
import { readFileState, readRange } from "./local-file.ts";
import { PartsIndex, chunkFileName, loadManifest } from "./manifest-io.ts";
import { pruneSnapshots } from "./prune-snapshots.ts";
import { backupSqlite } from "./sqlite-backup.ts";
import type { SnapshotComment } from "./snapshot-history.ts";
import { readSnapshotHistory } from "./snapshot-history.ts";
import { storedPath } from "./snapshot-paths.ts";
import type { SnapshotSettings } from "./snapshot-settings.ts";

export interface SaveSnapshotOptions {
  store: SessionStore;
  api: IssueHost;
  agent: string;
  session: string;
  /** Files (JSONL transcripts and others): a file that extends its stored version uploads only its new tail. */
  files: readonly string[];
  /** SQLite databases: copied with VACUUM INTO while their writer runs, checked, uploaded whole (unchanged chunks are not). */
  sqlite?: readonly string[];
  /** Paths are stored relative to this folder. */
  cwd: string;
  /** The writer's epoch (what `resume` took over with); default the current fence. Below the fence: refused. */
  epoch?: number;
  /** Publish divergent files as a full replacement (and a snapshot whose predecessor is out of sync). */
  force?: boolean;
  settings: SnapshotSettings;
  logger?: Pick<Logger, "warn" | "debug">;
  now?: () => Date;
}

export interface SaveSnapshotResult {
  /** false: nothing changed since the last snapshot, nothing was written. */
  changed: boolean;
  agent: string;
  session: string;
  /** The [SNAPSHOT] comment (the last one when nothing changed; null when there is none). */
  comment_id: number | null;
  issue: number;
  epoch: number;
  files: number;
  bytes: number;
  /** Bytes this save uploaded (chunks, sealed size when sealed, and the manifest). */
  uploaded: number;
  /** Key id, or null (plain). */
  sealed: string | null;
  /** [SNAPSHOT] and parts comments deleted by retention. */
  pruned: number;
  /** Files published as a full replacement of a divergent stored version (--force). */
  replaced?: string[];
}

interface Local {
  path: string;
  source: string;
  kind: "file" | "sqlite";
}

/**
 * Take a snapshot of an agent's native state: upload what is new as attachments of a parts comment, then
 * name the manifest in a [SNAPSHOT] comment (the commit point: until it is posted, the previous snapshot is
 * the one restored). Nothing is written when nothing changed. On a host with no attachment API
 * (capabilities.attachments false) snapshots are off: SnapshotsOffError before any request, so no parts
 * comment is left behind.
 */
export async function saveSnapshot(o: SaveSnapshotOptions): Promise<SaveSnapshotResult> {
  const { store, api, settings: st } = o;
  if (!api.capabilities.attachments) throw new SnapshotsOffError();
  const repo = store.repo;
  const hist = await readSnapshotHistory(store, api, o.agent, o.session, st.keep + 1);
  const epoch = o.epoch ?? hist.fence;
  if (epoch < hist.fence)
    throw new SnapshotFencedError(
      `snapshot refused: this instance writes ${o.agent} (session ${o.session}) under epoch ${epoch}, below the fence ${hist.fence}: another instance took over (checkpost resume). ` +
        "Stop this instance; the one that took over snapshots from now on.",
    );
  const last = hist.snapshots.find((s) => !s.zombie) ?? null;
  const keys = [...(st.key ? [st.key] : []), ...st.oldKeys];
  const parts = new PartsIndex(api, repo);
  let prev: Manifest | null = null;
  if (last) {
    try {
      prev = await loadManifest(api, last, keys, parts);
      // The chunks a new manifest would name again must still be there, or it would be out of sync too.
      await requireParts(prev, parts, last.commentId);
    } catch (e) {
      if (!(e instanceof SnapshotOutOfSyncError) || !o.force) throw e;
      prev = null; // nothing of it is reused: a full snapshot
      o.logger?.warn({ err: e.message }, "the last snapshot is out of sync; --force publishes a full one");
    }
  }
  const locals: Local[] = [...o.files.map((f) => ({ source: f, kind: "file" as const })), ...(o.sqlite ?? []).map((f) => ({ source: f, kind: "sqlite" as const }))].map((l) => ({
    ...l,
    path: storedPath(o.cwd, l.source),
  }));
  const dupe = locals.find((l, i) => locals.findIndex((m) => m.path === l.path) !== i);
  if (dupe) throw new SnapshotLimitError(`${dupe.source} is named twice; name each file once`);
  const tmp = await mkdtemp(join(tmpdir(), "checkpost-snap-"));
  try {
    // SQLite first: each backup is a consistent copy, read from here on like any file.
    const readFrom = new Map<string, string>();
    for (const [i, l] of locals.entries()) {
      if (l.kind !== "sqlite") {
        readFrom.set(l.path, resolve(o.cwd, l.source));
        continue;
      }
      const copy = join(tmp, `db-${i}.sqlite`);
      backupSqlite(resolve(o.cwd, l.source), copy);
      readFrom.set(l.path, copy);
    }
    const prevByPath = new Map((prev?.files ?? []).map((f) => [f.path, f]));
    const states = await Promise.all(locals.map(async (l) => ({ l, s: await readFileState(readFrom.get(l.path) as string, prevByPath.get(l.path)?.size) })));
    let total = 0;
    for (const { l, s } of states) {
      total += s.size;
      const limits = `per file CHECKPOST_SNAPSHOT_MAX_FILE_BYTES=${st.maxFileBytes}, in total CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES=${st.maxTotalBytes}`;
      if (s.size > st.maxFileBytes) throw new SnapshotLimitError(`${l.source} is ${s.size} bytes, over the snapshot limit (${limits}): raise the setting or leave the file out`);
      if (total > st.maxTotalBytes) throw new SnapshotLimitError(`the files add up to more than ${st.maxTotalBytes} bytes, over the snapshot limit (${limits}): raise the setting or leave files out`);
    }
    const plans = states.map(({ l, s }) => ({ l, s, plan: planFile(prevByPath.get(l.path), s, { appendOnly: l.kind === "file", force: o.force === true }) }));
    const divergent = plans.flatMap(({ l, plan }) => (plan.kind === "divergent" ? [{ path: l.path, why: plan.why }] : []));
    if (divergent.length) throw new SnapshotDivergentError(divergent);
    const sameSet = prev !== null && prev.files.length === plans.length && prev.key === (st.key?.id ?? null);
    const result = (changed: boolean, comment: number | null, uploaded: number, pruned: number, m: Pick<Manifest, "files">): SaveSnapshotResult => ({
      changed,
      agent: o.agent,
      session: o.session,
      comment_id: comment,
      issue: hist.head.number,
      epoch,
      files: m.files.length,
      bytes: manifestBytes(m),
      uploaded,
      sealed: st.key?.id ?? null,
      pruned,
    });
    if (sameSet && prev && last && plans.every((p) => p.plan.kind === "unchanged" && prevByPath.get(p.l.path)?.mode === p.s.mode)) return result(false, last.commentId, 0, 0, prev);

    // Chunks already stored (any file of the last snapshot), by key and content address.
    const stored = new Map<string, ChunkRef>();
    for (const f of prev?.files ?? []) for (const c of f.chunks) stored.set(`${c.k ?? ""}/${c.n}`, c);
    const partsComment = await api.postRecord(repo, hist.head.number, partsCommentBody(o.agent, o.session), { retry: false });
    let uploaded = 0;
    const upload = async (name: string, bytes: Uint8Array) => {
      const sent = st.key ? seal(st.key, bytes) : bytes;
      await api.attach(repo, { comment: partsComment.id }, name, sent, "application/octet-stream");
      uploaded += sent.length;
    };
    const files: FileEntry[] = [];
    for (const { l, s, plan } of plans) {
      const before = prevByPath.get(l.path);
      const base = { path: l.path, kind: l.kind, size: s.size, mode: s.mode, mtimeMs: s.mtimeMs, sha256: s.sha256 };
      if (plan.kind === "unchanged" && before) {
        files.push({ ...base, chunks: before.chunks });
        continue;
      }
      const from = plan.kind === "extends" ? plan.from : 0;
      const chunks: ChunkRef[] = plan.kind === "extends" && before ? [...before.chunks] : [];
      for (const [a, b] of chunkRanges(from, s.size, st.chunkBytes)) {
        const bytes = await readRange(readFrom.get(l.path) as string, a, b);
        const n = chunkName(bytes, st.key);
        const k = st.key?.id;
        const have = stored.get(`${k ?? ""}/${n}`);
        if (have) {
          chunks.push(have);
          continue;
        }
        await upload(chunkFileName(n), bytes);
        const ref: ChunkRef = { n, c: partsComment.id, s: bytes.length, ...(k ? { k } : {}) };
        stored.set(`${k ?? ""}/${n}`, ref);
        chunks.push(ref);
      }
      files.push({ ...base, chunks, ...(plan.kind === "extends" && before ? { extends: { size: before.size, sha256: before.sha256 } } : {}) });
    }
    const now = (o.now ?? systemClock)();
    const manifest: Manifest = { v: 1, agent: o.agent, session: o.session, epoch, created: now.toISOString(), key: st.key?.id ?? null, files };
    const manifestName = `manifest-${randomBytes(16).toString("hex")}.json`;
    await upload(manifestName, Buffer.from(JSON.stringify(manifest), "utf8"));
    // The commit point: from here on this is the snapshot a restore takes.
    // What the [SNAPSHOT] record says, beside its header (agent, session, time): kept as this save's answer too.
    const fields = { epoch, manifestComment: partsComment.id, manifest: manifestName, files: files.length, bytes: manifestBytes(manifest), uploaded, sealed: st.key?.id ?? null };
    const body = formatSnapshot({ agent: o.agent, session: o.session, timestamp: pythonUtcIsoformat(now), ...fields });
    const posted = await postExactlyOnce(api, repo, hist.head.number, body, `Manifest: ${partsComment.id}/${manifestName}`);
    const mine: SnapshotComment = {
      commentId: posted.id,
      issue: hist.head.number,
      createdAt: posted.createdAt,
      htmlUrl: posted.htmlUrl,
      snapshot: {
        version: "1.0",
        agent: o.agent,
        session: o.session,
        timestamp: null,
        ...fields,
      },
      zombie: false,
    };
    let pruned = 0;
    try {
      pruned = await pruneSnapshots({ api, repo, keep: st.keep, mine: { snap: mine, manifest }, history: hist, keys, parts });
    } catch (e) {
      // The snapshot is saved; retention tries again at the next save.
      o.logger?.warn({ err: e instanceof Error ? e.message : String(e) }, "could not prune old snapshots; the next save tries again");
    }
    const r = result(true, posted.id, uploaded, pruned, manifest);
    const replaced = plans.filter(
      (p) => o.force && prevByPath.has(p.l.path) && p.l.kind === "file" && planFile(prevByPath.get(p.l.path), p.s, { appendOnly: true, force: false }).kind === "divergent",
    );
    return replaced.length ? { ...r, replaced: replaced.map((p) => p.l.path) } : r;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Every chunk of `m` is still an attachment where it says; else "out of sync". */
async function requireParts(m: Manifest, parts: PartsIndex, snapshotComment: number): Promise<void> {
  const refs = m.files.flatMap((f) => f.chunks);
  const found = await Promise.all(refs.map((c) => parts.find(c.c, chunkFileName(c.n))));
  const gone = refs.filter((_, i) => found[i] === null);
  if (gone.length)
    throw new SnapshotOutOfSyncError(
      `out of sync: the last snapshot (comment ${snapshotComment}) names ${gone.length} part(s) that are gone (on comment(s) ${[...new Set(gone.map((c) => c.c))].join(", ")}). ` +
        "Nothing was uploaded. Pass --force to publish a full snapshot from the agent's current files.",
    );
}
