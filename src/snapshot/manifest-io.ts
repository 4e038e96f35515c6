import type { HostAttachment, IssueHost, RepoRef } from "../ports/issue-host.ts";
import { HostError } from "../errors.ts";
import type { ChunkRef, Manifest } from "./core/manifest.ts";
import { ManifestSchema } from "./core/manifest.ts";
import { chunkName, unseal } from "./core/seal.ts";
import { SnapshotKeyError, SnapshotOutOfSyncError } from "./core/snapshot-errors.ts";
import type { StateKey } from "./core/state-key.ts";
import type { SnapshotComment } from "./snapshot-history.ts";

/** The attachment name of a chunk: its content address, with an extension Forgejo's default ALLOWED_TYPES accepts. */
export const chunkFileName = (name: string) => `${name}.txt`;

/** The attachments of the comments a snapshot uses, by comment id; a comment that is gone is missing, not an error here. */
export class PartsIndex {
  private readonly byComment = new Map<number, Promise<Map<string, HostAttachment> | null>>();
  constructor(
    private readonly api: IssueHost,
    private readonly repo: RepoRef,
  ) {}

  /** The attachment `name` of comment `id`, or null when the comment or the attachment is gone. */
  async find(id: number, name: string): Promise<HostAttachment | null> {
    let p = this.byComment.get(id);
    if (!p) {
      p = this.api.listAttachments(this.repo, { comment: id }).then(
        (list) => new Map(list.map((a) => [a.name, a])),
        (e: unknown) => {
          if (e instanceof HostError && e.reason === "not-found") return null;
          throw e;
        },
      );
      this.byComment.set(id, p);
    }
    return (await p)?.get(name) ?? null;
  }
}

/** Read and check a snapshot's manifest; its absence is "out of sync", never a fresh start. */
export async function loadManifest(api: IssueHost, snap: SnapshotComment, keys: readonly StateKey[], parts: PartsIndex): Promise<Manifest> {
  const s = snap.snapshot;
  const where = `the snapshot of ${s.agent} (session ${s.session}) in comment ${snap.commentId} of issue #${snap.issue}`;
  const att = await parts.find(s.manifestComment, s.manifest);
  if (!att)
    throw new SnapshotOutOfSyncError(
      `out of sync: ${where} names manifest ${s.manifest} on comment ${s.manifestComment}, which is gone. Nothing was restored. ` +
        "Its parts were deleted on the forge; take a new snapshot (`checkpost snapshot save … --force`) from the agent's current files.",
    );
  const raw = await api.downloadAttachment(att.downloadUrl);
  const text = s.sealed === null ? raw : unseal(keys, raw, `the manifest of ${where}`);
  let m: Manifest;
  try {
    m = ManifestSchema.parse(JSON.parse(text.toString("utf8")));
  } catch (e) {
    throw new SnapshotOutOfSyncError(`out of sync: the manifest of ${where} is not a checkpost manifest (${e instanceof Error ? e.message.slice(0, 200) : "unreadable"}). Nothing was restored.`);
  }
  if (m.agent !== s.agent || m.session !== s.session || m.epoch !== s.epoch || m.key !== s.sealed)
    throw new SnapshotOutOfSyncError(`out of sync: the manifest of ${where} names another agent, session, epoch or key than its comment. Nothing was restored.`);
  return m;
}

/** One chunk's plain bytes, checked against its content address. */
export async function fetchChunk(api: IssueHost, ref: ChunkRef, att: HostAttachment, keys: readonly StateKey[]): Promise<Buffer> {
  const raw = await api.downloadAttachment(att.downloadUrl);
  const key = ref.k === undefined ? null : (keys.find((k) => k.id === ref.k) ?? null);
  if (ref.k !== undefined && !key)
    throw new SnapshotKeyError(`a chunk is sealed with key id ${ref.k}, which none of the given keys is: give that key in CHECKPOST_STATE_KEY or CHECKPOST_STATE_OLD_KEYS`);
  const plain = key ? unseal([key], raw, `chunk ${ref.n.slice(0, 12)}`) : raw;
  if (plain.length !== ref.s || chunkName(plain, key) !== ref.n)
    throw new SnapshotOutOfSyncError(`out of sync: chunk ${ref.n.slice(0, 12)}… on comment ${ref.c} does not match its content address (altered on the forge). Nothing was restored.`);
  return plain;
}
