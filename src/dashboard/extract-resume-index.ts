import { findDashboardSections } from "./find-dashboard-sections.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "./markers.ts";
import { RawResumeIndexSchema, ResumeIndexEntrySchema, verifyResumeIndexSignature } from "./resume-index.ts";
import type { ResumeIndex, ResumeIndexEntry, ResumeIndexSigning } from "./resume-index.ts";

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
  const section = body.slice(span.start, span.end);
  const open = section.indexOf(RESUME_INDEX_OPEN);
  if (open < 0 || section.indexOf(RESUME_INDEX_OPEN, open + 1) >= 0) return null;
  const from = open + RESUME_INDEX_OPEN.length;
  const close = section.indexOf(RESUME_INDEX_CLOSE, from);
  if (close < 0) return null;
  let json: unknown;
  try {
    json = JSON.parse(section.slice(from, close));
  } catch {
    return null;
  }
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
