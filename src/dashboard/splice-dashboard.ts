import { ProtocolInputError } from "../errors.ts";
import { findDashboardSections } from "./find-dashboard-sections.ts";
import { DASHBOARD_END, DASHBOARD_START } from "./markers.ts";

/**
 * Put `section` (from `renderDashboard`) into an issue body. The first
 * complete start…end section is replaced and any further complete sections
 * (duplicates) are removed; with none, the section is appended after a blank
 * line. A start marker without an end marker counts as absent and is left as
 * it is. Text outside the sections is kept byte for byte. A CRLF body gets the
 * section with CRLF line ends.
 *
 * @example spliceDashboard("Notes by a person", renderDashboard(snapshot, now))
 */
export function spliceDashboard(body: string, section: string): string {
  if (!section.startsWith(DASHBOARD_START) || !section.endsWith(DASHBOARD_END) || findDashboardSections(section).length !== 1)
    throw new ProtocolInputError("spliceDashboard: section must be one rendered dashboard section, start marker to end marker");
  const crlf = body.includes("\r\n");
  const text = crlf ? section.replace(/\r?\n/g, "\r\n") : section;
  const spans = findDashboardSections(body);
  if (spans.length === 0) {
    if (body === "") return text;
    const nl = crlf ? "\r\n" : "\n";
    const sep = body.endsWith(nl + nl) ? "" : body.endsWith(nl) ? nl : nl + nl;
    return `${body}${sep}${text}`;
  }
  let out = "";
  let at = 0;
  spans.forEach((s, i) => {
    out += body.slice(at, s.start) + (i === 0 ? text : "");
    at = s.end;
  });
  return out + body.slice(at);
}
