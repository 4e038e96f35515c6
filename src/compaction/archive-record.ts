/**
 * The bot's record of a health archive (issue 19.4). Forgejo's API does not say who uploaded an
 * attachment (modules/structs/attachment.go has no uploader field), and anyone who may edit the issue
 * (its poster, writers, admins: routers/api/v1/repo/issue_attachment.go, canUserWriteIssueAttachment)
 * can attach a file with any name. So an archive counts only when a comment by the bot, not edited
 * since, names it with the SHA-256 of its bytes (and, with a signing key, signs that). Pure.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import * as z from "zod";

const MARKER = "<!-- checkpost:archive ";

export const ArchiveRecordSchema = z.object({
  name: z.string().min(1).max(255),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  comments: z.number().int().nonnegative(),
  first: z.number().int(),
  last: z.number().int(),
  sig: z.string().optional(),
});
export type ArchiveRecord = z.infer<typeof ArchiveRecordSchema>;

export const sha256Hex = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const signed = (r: ArchiveRecord) => JSON.stringify(["checkpost-archive-v1", r.name, r.sha256, r.bytes]);
export const signArchiveRecord = (r: ArchiveRecord, key: string) => `hmac-sha256=${createHmac("sha256", key).update(signed(r), "utf8").digest("hex")}`;

/** The record comment's body: a hidden JSON line, then a sentence for people. */
export function formatArchiveRecord(r: Omit<ArchiveRecord, "sig">, signingKey?: string): string {
  const full: ArchiveRecord = { ...r, ...(signingKey ? { sig: signArchiveRecord(r, signingKey) } : {}) };
  // The name is made by compaction (letters, digits, "-", "."); JSON escapes keep any "<" or ">" from closing the comment.
  const json = JSON.stringify(full).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
  return `${MARKER}${json} -->\ncheckpost archived ${r.comments} superseded health signal(s) (comments ${r.first} to ${r.last}) to \`${r.name}\`, SHA-256 \`${r.sha256}\`. \`checkpost history --archived\` believes an archive only when a record like this one, by the bot and not edited, names its bytes.\n`;
}

/** The record a comment body holds, or null. */
export function parseArchiveRecord(body: string): ArchiveRecord | null {
  if (!body.startsWith(MARKER)) return null;
  const end = body.indexOf(" -->", MARKER.length);
  if (end < 0) return null;
  try {
    const r = ArchiveRecordSchema.safeParse(JSON.parse(body.slice(MARKER.length, end)));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export interface RecordComment {
  id: number;
  author: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface TrustedRecord {
  record: ArchiveRecord;
  commentId: number;
  recordedBy: string;
}

/**
 * The archive records a reader believes: in a comment by one of `botLogins` that was not edited
 * (Forgejo's updated_at moves on every edit; the residual is an edit within the same second, as for
 * checkpoints), and, with a key, correctly signed. Other comments holding a record are returned as
 * `refused`, with why, so they can be reported.
 */
export function trustedArchiveRecords(
  comments: readonly RecordComment[],
  o: { botLogins: ReadonlySet<string>; signingKey?: string },
): { trusted: TrustedRecord[]; refused: { commentId: number; author: string; name: string; reason: string }[] } {
  const bots = new Set([...o.botLogins].map((l) => l.toLowerCase()));
  const trusted: TrustedRecord[] = [];
  const refused: { commentId: number; author: string; name: string; reason: string }[] = [];
  for (const c of comments) {
    const record = parseArchiveRecord(c.body);
    if (!record) continue;
    const why = !bots.has(c.author.toLowerCase())
      ? `recorded by ${c.author}, not by the bot`
      : Date.parse(c.updatedAt) !== Date.parse(c.createdAt)
        ? "its record comment was edited"
        : o.signingKey !== undefined && !sameSig(record.sig, signArchiveRecord(record, o.signingKey))
          ? "its record is not signed with CHECKPOST_SIGNING_KEY"
          : null;
    if (why) refused.push({ commentId: c.id, author: c.author, name: record.name, reason: why });
    else trusted.push({ record, commentId: c.id, recordedBy: c.author });
  }
  return { trusted, refused };
}

function sameSig(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** How one attachment named like an archive is judged: believed (with the record that names its bytes) or not, and why. */
export type ArchiveVerdict = { trusted: true; record: TrustedRecord } | { trusted: false; reason: string };

/** Judge an asset's bytes against the believed records of its issue. */
export function judgeArchive(asset: { name: string }, bytes: Uint8Array | null, records: readonly TrustedRecord[]): ArchiveVerdict {
  const named = records.filter((r) => r.record.name === asset.name);
  if (!named.length) return { trusted: false, reason: "no record by the bot names this archive" };
  if (bytes === null) return { trusted: false, reason: "not downloaded" };
  const hash = sha256Hex(bytes);
  const match = named.find((r) => r.record.sha256 === hash && r.record.bytes === bytes.length);
  return match ? { trusted: true, record: match } : { trusted: false, reason: "its bytes are not the ones the bot recorded (SHA-256 differs)" };
}
