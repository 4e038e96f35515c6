import { findDashboardSections } from "./find-dashboard-sections.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN, RESUME_INDEX_REF_OPEN } from "./markers.ts";
import * as z from "zod";
import { RawResumeIndexSchema, ResumeIndexEntrySchema, verifyResumeIndexSignature } from "./resume-index.ts";
import type { ResumeIndex, ResumeIndexEntry, ResumeIndexSigning } from "./resume-index.ts";
import { lazySchema } from "../protocol/lazy-schema.ts";

/**
 * The resume index from an issue body, or null when there is none, or it is
 * ambiguous or malformed, or (with `signing`) unsigned or badly signed. Only
 * the first dashboard section (the one `spliceDashboard` writes) is read, and
 * it must hold exactly one index. Entries are checked one by one: a malformed
 * entry, one beyond the watermark, one whose epoch is above its fence, and
 * every copy of a duplicated agent+session are dropped alone (`complete` is
 * then false). The index is a hint: callers verify the comment it points to.
 *
 * @example extractResumeIndex(issue.body)?.entries.find((e) => e.agent === "implementation-worker")
 */
export function extractResumeIndex(body: string | null | undefined, opts: { signing?: ResumeIndexSigning } = {}): ResumeIndex | null {
  if (typeof body !== "string") return null;
  const span = findDashboardSections(body)[0];
  if (!span) return null;
  return indexIn(body.slice(span.start, span.end), opts);
}

/**
 * The resume index from the body of the comment a dashboard's pointer names
 * (`extractResumeIndexRef`): the same checks as `extractResumeIndex`, on the
 * one index the comment must hold.
 */
export function extractResumeIndexFromComment(body: string | null | undefined, opts: { signing?: ResumeIndexSigning } = {}): ResumeIndex | null {
  return typeof body === "string" ? indexIn(body, opts) : null;
}

/**
 * What a resume index says bar its watermark, its "complete up to" time and signature, as a string to
 * compare (the writer's `content`, see renderResumeIndex). Two indexes with the same content point every
 * agent session to the same comments (an older claim only makes readers list a longer tail).
 */
export function resumeIndexContent(index: Readonly<Record<string, unknown>>): string {
  const { watermark: _w, watermarkUpdatedAt: _u, completeBefore: _c, sig: _s, ...rest } = index;
  return JSON.stringify(rest);
}

/**
 * The content (resumeIndexContent) of the one index in an index comment's body, unchecked, or null.
 * Only for the bot to tell whether its own comment already says what it would write: never a
 * reader's answer (readers use extractResumeIndexFromComment).
 */
export function resumeIndexCommentContent(body: string): string | null {
  const json = oneMarkedJson(body, RESUME_INDEX_OPEN);
  // Anything else is not an index: the bot rewrites it.
  return typeof json === "object" && json !== null && !Array.isArray(json) ? resumeIndexContent(json as Record<string, unknown>) : null;
}

/**
 * The JSON between `open` and the next RESUME_INDEX_CLOSE when `text` holds exactly one `open`;
 * undefined when it holds none, two, no close, or text that is not JSON.
 */
function oneMarkedJson(text: string, open: string): unknown {
  const at = text.indexOf(open);
  if (at < 0 || text.indexOf(open, at + 1) >= 0) return undefined;
  const from = at + open.length;
  const close = text.indexOf(RESUME_INDEX_CLOSE, from);
  if (close < 0) return undefined;
  try {
    return JSON.parse(text.slice(from, close)) as unknown;
  } catch {
    return undefined;
  }
}

const ResumeIndexRefSchema = lazySchema(() =>
  z.object({
    /** The comment of this issue that holds the index. */
    comment: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    /** The index's watermarkUpdatedAt when written: a cold reader lists comments updated since then (the index comment among them). */
    since: z
      .string()
      .max(40)
      .refine((s) => !Number.isNaN(Date.parse(s)), "must be a time"),
  }),
);
export type ResumeIndexRef = z.infer<typeof ResumeIndexRefSchema>;

/** The pointer line a dashboard holds instead of a large index. */
export function formatResumeIndexRef(ref: ResumeIndexRef): string {
  return `${RESUME_INDEX_REF_OPEN}${JSON.stringify({ comment: ref.comment, since: ref.since })}${RESUME_INDEX_CLOSE}`;
}

/**
 * The pointer to the resume index comment in the body's first dashboard
 * section, or null (none, two, or malformed). A hint like the index: the
 * comment it names is read from this issue's own comment list and checked.
 */
export function extractResumeIndexRef(body: string | null | undefined): ResumeIndexRef | null {
  if (typeof body !== "string") return null;
  const span = findDashboardSections(body)[0];
  if (!span) return null;
  const json = oneMarkedJson(body.slice(span.start, span.end), RESUME_INDEX_REF_OPEN);
  if (json === undefined) return null;
  const r = ResumeIndexRefSchema.safeParse(json);
  return r.success ? r.data : null;
}

/** The one index in `section` (a dashboard section or an index comment), checked. */
function indexIn(section: string, opts: { signing?: ResumeIndexSigning }): ResumeIndex | null {
  const json = oneMarkedJson(section, RESUME_INDEX_OPEN);
  if (json === undefined) return null;
  const r = RawResumeIndexSchema.safeParse(json);
  if (!r.success) return null;
  if (opts.signing && !verifyResumeIndexSignature(json as Record<string, unknown>, opts.signing)) return null;
  const { entries: raw, ...ix } = r.data;
  const ok: ResumeIndexEntry[] = [];
  const count = new Map<string, number>();
  for (const item of raw) {
    const e = ResumeIndexEntrySchema.safeParse(item);
    if (!e.success || e.data.commentId > ix.watermark || (e.data.epoch ?? 0) > e.data.maxEpoch) continue;
    const key = JSON.stringify([e.data.agent, e.data.session]);
    count.set(key, (count.get(key) ?? 0) + 1);
    ok.push(e.data);
  }
  const entries = ok.filter((e) => count.get(JSON.stringify([e.agent, e.session])) === 1);
  return entries.length === raw.length ? { ...ix, entries } : { ...ix, entries, complete: false };
}
