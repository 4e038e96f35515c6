import { AGE_PATTERN } from "./format-age.ts";
import { findDashboardSections } from "./find-dashboard-sections.ts";
import { BODY_STAMP_OPEN, UPDATED_LINE_PREFIX } from "./markers.ts";

function normalised(body: string): string {
  let out = "";
  let at = 0;
  for (const s of findDashboardSections(body)) {
    const section = body
      .slice(s.start, s.end)
      .split(/\r?\n/)
      .filter((line) => !line.startsWith(UPDATED_LINE_PREFIX) && !line.startsWith(BODY_STAMP_OPEN))
      .map((line) => line.replace(AGE_PATTERN, "…"))
      .join("\n");
    out += body.slice(at, s.start) + section;
    at = s.end;
  }
  return out + body.slice(at);
}

/**
 * Whether writing `newBody` over `oldBody` changes anything a person or a
 * cold reader would care about. Inside the dashboard section the "_Updated …_"
 * line, the body stamp and relative ages ("3m ago") are ignored, so a tick that only moves the
 * clock does not write; a liveness change, a new checkpoint or anomaly does.
 * Outside the section every byte counts.
 */
export function dashboardChanged(oldBody: string, newBody: string): boolean {
  return oldBody !== newBody && normalised(oldBody) !== normalised(newBody);
}
