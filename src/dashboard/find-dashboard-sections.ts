import { DASHBOARD_END, DASHBOARD_START } from "./markers.ts";

/** A bot section: `start` is the index of its start marker, `end` the index just past its end marker. */
export interface DashboardSpan {
  start: number;
  end: number;
}

/**
 * Every complete section in a body, in order. A section runs from a start
 * marker to the first end marker after it; when several start markers precede
 * that end marker, the last one opens the section, so an orphan start marker
 * (its end marker deleted by hand) never swallows the text that follows it.
 * Orphan markers are left to the person's text.
 */
export function findDashboardSections(body: string): DashboardSpan[] {
  const spans: DashboardSpan[] = [];
  let from = 0;
  for (;;) {
    let start = body.indexOf(DASHBOARD_START, from);
    if (start < 0) return spans;
    const endAt = body.indexOf(DASHBOARD_END, start + DASHBOARD_START.length);
    if (endAt < 0) return spans;
    for (let s = body.indexOf(DASHBOARD_START, start + 1); s >= 0 && s < endAt; s = body.indexOf(DASHBOARD_START, s + 1)) start = s;
    spans.push({ start, end: endAt + DASHBOARD_END.length });
    from = endAt + DASHBOARD_END.length;
  }
}
