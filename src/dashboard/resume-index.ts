import { createHmac, timingSafeEqual } from "node:crypto";
import * as z from "zod";
import { AgentNameSchema, CONTROLS, CheckpointIdSchema, EpochSchema, SeqSchema, SessionIdSchema } from "../protocol/index.ts";
import type { DirectiveKind } from "../protocol/index.ts";
import { LegacyWritersSchema, MAX_INTERVALS, MAX_NOT_USED, directiveOf } from "../projection/index.ts";
import type { LegacyWriters, ProjectionSnapshot } from "../projection/index.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "./markers.ts";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

const CommentId = lazySchema(() => z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

/** Most entries an index holds. The writer keeps the newest this many; the reader refuses a longer list. */
export const MAX_RESUME_INDEX_ENTRIES = 10_000;

/**
 * One entry. The writer writes only entries that pass this schema and the
 * reader drops (alone) any that does not, so one odd name never costs the
 * whole index.
 */
export const ResumeIndexEntrySchema = lazySchema(() =>
  z.object({
    agent: builtSchema(AgentNameSchema),
    session: builtSchema(SessionIdSchema),
    /** The comment holding this agent+session's resume point. */
    commentId: builtSchema(CommentId),
    id: CheckpointIdSchema.optional(),
    seq: SeqSchema.optional(),
    epoch: EpochSchema.optional(),
    /**
     * The pointed comment's creation time. A cold reader whose pointed comment is only a few ids
     * below the watermark reads it and the tail in one `since` request from here (a hint like the
     * rest: the comment found is checked as always).
     */
    at: z
      .string()
      .max(40)
      .refine((s) => !Number.isNaN(Date.parse(s)), "must be a time")
      .optional(),
    /** Highest epoch seen for this agent+session (the fence): the pointed checkpoint may not be below it. */
    maxEpoch: builtSchema(EpochSchema),
    /** `[CONTROL]` comments in effect (pause, hide, pending rewind/release), which a cold reader reads with the pointed comment. */
    controls: z.array(builtSchema(CommentId)).max(3).optional(),
    /** The directive those controls give (a hint: `save` re-reads and verifies the comment). */
    directive: z.object({ kind: z.enum(CONTROLS.directives as [DirectiveKind, ...DirectiveKind[]]), commentId: builtSchema(CommentId) }).optional(),
    /**
     * Newer checkpoints refused for a reason a cold reader can judge from the comment and the fence alone
     * (zombie, unsigned, bad signature), read with the pointed comment so `resume` reports them in `not_used`.
     */
    notUsed: z.array(builtSchema(CommentId)).max(MAX_NOT_USED).optional(),
    /**
     * Liveness as of the watermark: the last trusted signal's time and the gaps (ms) between the last
     * signals, up to MAX_INTERVALS, oldest first (the entry's lastSignalAt and intervalsMs). A cold reader
     * appends the signals of the tail (joinSignals), so every reader answers the same liveness. Absent in
     * an index written before they were (the reader then reads every comment).
     */
    signalAt: z
      .string()
      .max(40)
      .refine((s) => !Number.isNaN(Date.parse(s)), "must be a time")
      .optional(),
    gapsMs: z.array(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).max(MAX_INTERVALS).optional(),
  }),
);

const SignatureField = lazySchema(() => z.string().regex(/^hmac-sha256=[0-9a-f]{64}$/));

/**
 * A hint for cold readers: where each agent+session's resume point is and how
 * far the bot had read. With a signing key the bot signs it (`sig`, over the
 * index and the issue it belongs to); `complete` says no entry was left out.
 * Entries are checked one by one (see `extractResumeIndex`).
 */
export const ResumeIndexSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    watermark: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    watermarkUpdatedAt: z
      .string()
      .refine((s) => !Number.isNaN(Date.parse(s)), "must be a time")
      .optional(),
    entries: z.array(builtSchema(ResumeIndexEntrySchema)).max(MAX_RESUME_INDEX_ENTRIES),
    /** Every agent+session with a resume point has an entry (none was left out for size or shape). */
    complete: z.boolean().optional(),
    /** The writer's CHECKPOST_LEGACY_WRITERS when not the default `fence`: a reader with another policy reads every comment. */
    legacyWriters: LegacyWritersSchema.optional(),
    sig: SignatureField.optional(),
  }),
);
export type ResumeIndex = z.infer<typeof ResumeIndexSchema>;
export type ResumeIndexEntry = z.infer<typeof ResumeIndexEntrySchema>;

/** The raw shape before entries are checked one by one. */
export const RawResumeIndexSchema = lazySchema(() => ResumeIndexSchema.extend({ entries: z.array(z.unknown()).max(MAX_RESUME_INDEX_ENTRIES) }));

/** Key and scope (`owner/repo#issue`) the index is signed for; the scope stops copying an index to another issue. */
export interface ResumeIndexSigning {
  key: string;
  scope: string;
}

/** The scope string of an issue, as both writer and reader build it. */
export function resumeIndexScope(owner: string, repo: string, issue: number): string {
  return `${owner}/${repo}#${issue}`.toLowerCase();
}

/** Not-used kinds a cold reader judges the same from the comment alone (an edit may be invisible to it: not listed). */
const LOCALLY_JUDGED = new Set(["zombie", "unsigned", "bad-signature"]);

/** The index of a snapshot: one entry per agent+session that has a resume point, in snapshot order. */
export function buildResumeIndex(snapshot: ProjectionSnapshot, opts: { legacyWriters?: LegacyWriters } = {}): ResumeIndex {
  let entries: ResumeIndexEntry[] = [];
  let complete = true;
  for (const e of snapshot.entries) {
    const l = e.latest;
    // Signals but no resume point (health only): no entry to carry its liveness, so the index cannot say it is complete.
    if (!l && e.lastSignalAt !== null) complete = false;
    if (!l) continue;
    const c = e.control;
    const controls = c ? [c.paused, c.hidden, c.pending].filter((x) => x !== null).map((x) => x.commentId) : [];
    const d = directiveOf(e);
    const notUsed = (e.notUsed ?? []).filter((n) => LOCALLY_JUDGED.has(n.kind)).map((n) => n.commentId);
    const entry = {
      agent: e.agent,
      session: e.session,
      commentId: l.commentId,
      ...(l.id !== undefined ? { id: l.id } : {}),
      ...(l.seq !== undefined ? { seq: l.seq } : {}),
      ...(l.epoch !== undefined ? { epoch: l.epoch } : {}),
      at: l.createdAt,
      maxEpoch: e.maxEpoch,
      ...(controls.length ? { controls } : {}),
      ...(d ? { directive: { kind: d.kind, commentId: d.commentId } } : {}),
      ...(notUsed.length ? { notUsed } : {}),
      ...(e.lastSignalAt !== null ? { signalAt: e.lastSignalAt } : {}),
      ...(e.intervalsMs.length ? { gapsMs: e.intervalsMs.slice(-MAX_INTERVALS) } : {}),
    };
    // The reader's own entry check: what it would drop is not written (its agent gets a full read).
    if (ResumeIndexEntrySchema.safeParse(entry).success) entries.push(entry);
    else complete = false;
  }
  if (entries.length > MAX_RESUME_INDEX_ENTRIES) {
    // Keep the most recently checkpointed, in snapshot order.
    const cut = entries.map((x) => x.commentId).sort((a, b) => b - a)[MAX_RESUME_INDEX_ENTRIES - 1] as number;
    entries = entries.filter((x) => x.commentId >= cut).slice(0, MAX_RESUME_INDEX_ENTRIES);
    complete = false;
  }
  return {
    v: 1,
    watermark: snapshot.watermark,
    ...(snapshot.watermarkUpdatedAt !== null ? { watermarkUpdatedAt: snapshot.watermarkUpdatedAt } : {}),
    entries,
    complete,
    ...(opts.legacyWriters === "accept" ? { legacyWriters: opts.legacyWriters } : {}),
  };
}

/** `hmac-sha256=<hex>` over the scope and the index as JSON (without `sig`). */
export function signResumeIndex(index: Omit<ResumeIndex, "sig"> | Record<string, unknown>, signing: ResumeIndexSigning): string {
  const { sig: _, ...rest } = index as Record<string, unknown>;
  const mac = createHmac("sha256", signing.key).update(JSON.stringify(["checkpost-resume-index-v1", signing.scope, rest]), "utf8");
  return `hmac-sha256=${mac.digest("hex")}`;
}

/**
 * Check `sig` of an index as parsed from the body (before its entries are
 * checked: the signature covers them as written). Key order is kept by
 * JSON.parse, so re-serialising gives the signed text back.
 */
export function verifyResumeIndexSignature(raw: Record<string, unknown>, signing: ResumeIndexSigning): boolean {
  if (typeof raw["sig"] !== "string") return false;
  const expected = Buffer.from(signResumeIndex(raw, signing));
  const actual = Buffer.from(raw["sig"]);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * The index as one HTML comment line, signed when `signing` is given. `<`,
 * `>` and `&` are written as JSON `\u` escapes, so no name can close the
 * comment or fake a marker.
 */
export function formatResumeIndex(index: ResumeIndex, signing?: ResumeIndexSigning): string {
  const { sig: _, ...unsigned } = index;
  const out = signing ? { ...unsigned, sig: signResumeIndex(unsigned, signing) } : unsigned;
  const json = JSON.stringify(out).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `${RESUME_INDEX_OPEN}${json}${RESUME_INDEX_CLOSE}`;
}
