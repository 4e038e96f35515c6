import { findDashboardSections } from "./find-dashboard-sections.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "./markers.ts";
import { ResumeIndexSchema } from "./resume-index.ts";
import type { ResumeIndex } from "./resume-index.ts";

/**
 * The resume index from an issue body, or null when there is none, or it is
 * ambiguous, malformed or inconsistent. Only the first dashboard section (the
 * one `spliceDashboard` writes) is read, and it must hold exactly one index.
 * The index is a hint: callers verify the comment it points to.
 *
 * @example extractResumeIndex(issue.body)?.entries.find((e) => e.agent === "implementation-worker")
 */
export function extractResumeIndex(body: string | null | undefined): ResumeIndex | null {
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
  const r = ResumeIndexSchema.safeParse(json);
  return r.success ? r.data : null;
}
