import { gunzipSync, gzipSync } from "node:zlib";
import { systemClock } from "../clock.ts";
import type { HostAttachment, IssueHost, RepoRef } from "../ports/issue-host.ts";
import type { CommentRecord } from "../projection/index.ts";
import * as z from "zod";
import { CheckpostError, HostError } from "../errors.ts";
import { formatArchiveRecord, sha256Hex } from "./archive-record.ts";

/** One archived comment: one JSON object per line of the archive (docs/retention.md). */
export const ArchivedCommentSchema = z.object({
  id: z.number().int().positive(),
  author: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  html_url: z.string().optional(),
  body: z.string(),
});
export type ArchivedComment = z.infer<typeof ArchivedCommentSchema>;

export const ARCHIVE_PREFIX = "checkpost-health-archive-";

/** Compaction archives before it deletes; a host with no attachment API has nowhere to put the archive. */
export class ArchivesOffError extends CheckpostError {
  override name = "ArchivesOffError";
  constructor() {
    super("the issue host has no API to attach a file to an issue, so health compaction (which archives superseded health signals before it deletes them) is off there: nothing was deleted");
  }
}

export interface CompactionResult {
  selected: number;
  deleted: number;
  archive: { name: string; url: string; bytes: number } | null;
  dryRun: boolean;
}

/**
 * Archive, then delete. The selected comments are written as gzipped JSON
 * Lines and attached to the session issue; the attachment is read back and
 * checked to hold every selected comment; only then is each comment deleted.
 * A failed upload or a mismatched read-back deletes nothing (and throws). A
 * dry run returns what would be archived and deleted, and changes nothing.
 * On a host that cannot attach files (capabilities.attachments false) there is
 * nowhere to archive, so compaction is off: it throws and deletes nothing.
 */
export async function compactHealth(o: {
  api: IssueHost;
  repo: RepoRef;
  issue: number;
  selected: readonly CommentRecord[];
  dryRun?: boolean;
  now?: () => Date;
  /** Signs the archive's record comment (readers with the key believe only signed records). */
  signingKey?: string;
}): Promise<CompactionResult> {
  const { api, repo, issue, selected } = o;
  if (!selected.length) return { selected: 0, deleted: 0, archive: null, dryRun: Boolean(o.dryRun) };
  if (!api.capabilities.attachments) throw new ArchivesOffError();
  const lines = selected.map((c) =>
    JSON.stringify({ id: c.id, author: c.author, created_at: c.createdAt, updated_at: c.updatedAt, ...(c.htmlUrl ? { html_url: c.htmlUrl } : {}), body: c.body } satisfies ArchivedComment),
  );
  const gz = gzipSync(Buffer.from(`${lines.join("\n")}\n`, "utf8"));
  const stamp = (o.now ?? systemClock)().toISOString().replace(/[-:]/g, "").slice(0, 15);
  const name = `${ARCHIVE_PREFIX}${stamp}Z-${selected[0]?.id}-${selected[selected.length - 1]?.id}.jsonl.gz`;
  if (o.dryRun) return { selected: selected.length, deleted: 0, archive: { name, url: "", bytes: gz.length }, dryRun: true };

  const asset = await uploadArchiveOnce(api, repo, issue, name, gz);
  const back = readArchive(await api.downloadAttachment(asset.downloadUrl));
  const archived = new Set(back.map((a) => a.id));
  const missing = selected.filter((c) => !archived.has(c.id));
  if (missing.length) throw new CheckpostError(`the archive ${name} read back without ${missing.length} of its comments; nothing was deleted. Check the issue's attachments and try again.`);
  // The record that makes the archive believable (archive-record.ts): posted before anything is
  // deleted, so every deleted comment is in a recorded archive. A failure here deletes nothing; the
  // unrecorded upload is then listed as untrusted, and the next run archives the comments again.
  const first = selected[0]?.id ?? 0;
  const last = selected[selected.length - 1]?.id ?? 0;
  await api.postRecord(repo, issue, formatArchiveRecord({ name, sha256: sha256Hex(gz), bytes: gz.length, comments: selected.length, first, last }, o.signingKey));
  let deleted = 0;
  for (const c of selected) {
    try {
      await api.deleteRecord(repo, c.id);
      deleted++;
    } catch (e) {
      if (!(e instanceof HostError && e.reason === "not-found")) throw e; // already gone: nothing to do
    }
  }
  return { selected: selected.length, deleted, archive: { name, url: asset.downloadUrl, bytes: gz.length }, dryRun: false };
}

/**
 * Upload the archive, once. Forgejo stores the file first and then saves the issue again with the same
 * body (routers/api/v1/repo/issue_attachment.go:206-228): a body edit landing in between (the bot's own
 * dashboard write, a person's tick) makes that save fail with 500 while the file stays stored, and a lost
 * answer leaves the same doubt. So when the outcome is unknown, the archive is looked for by its name,
 * size and SHA-256 before giving up: found, it is used, and a retry never leaves a second archive.
 */
async function uploadArchiveOnce(api: IssueHost, repo: RepoRef, issue: number, name: string, gz: Buffer): Promise<HostAttachment> {
  try {
    return await api.attach(repo, { issue }, name, gz, "application/gzip");
  } catch (e) {
    if (!api.isOutcomeUnknown(e)) throw e;
    const stored = (await api.listAttachments(repo, { issue })).find((a) => a.name === name && a.size === gz.length);
    if (!stored || sha256Hex(await api.downloadAttachment(stored.downloadUrl)) !== sha256Hex(gz)) throw e;
    return stored;
  }
}

/** The comments in one archive (gzipped JSON Lines). */
export function readArchive(gz: Buffer): ArchivedComment[] {
  return gunzipSync(gz)
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => ArchivedCommentSchema.parse(JSON.parse(l)));
}
