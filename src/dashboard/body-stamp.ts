import { createHash } from "node:crypto";
import { findDashboardSections } from "./find-dashboard-sections.ts";
import { BODY_STAMP_OPEN, DASHBOARD_END } from "./markers.ts";

const STAMP_LINE = /<!-- checkpost:body-sha256 ([0-9a-f]{64}) -->\n/;

function digest(bare: string): string {
  return createHash("sha256").update(bare, "utf8").digest("hex");
}

/** The body without its stamp line (the first one; the bot writes exactly one). */
export function unstampBody(body: string): string {
  return body.replace(STAMP_LINE, "");
}

/**
 * The body as the bot writes it: its dashboard section ends with a digest of the whole body (the
 * stamp line left out). Any replica of the bot can then tell a body another replica wrote (the
 * digest matches) from a person's edit of it (a tick or a word changes the body, not the digest),
 * which no Forgejo API answers: the issue names no last editor. A body without a section is left alone.
 */
export function stampBody(body: string): string {
  const bare = unstampBody(body);
  const span = findDashboardSections(bare)[0];
  if (!span) return bare;
  const at = span.end - DASHBOARD_END.length;
  return `${bare.slice(0, at)}${BODY_STAMP_OPEN}${digest(bare)} -->\n${bare.slice(at)}`;
}

/**
 * Whether the body is exactly as a bot wrote it (its stamp matches). Only a hint for the bot's own
 * bookkeeping: anyone who may edit the issue can write a matching stamp, and all they gain is that
 * the bot treats that one edit as its own (no hold, their own ticks in it unread).
 */
export function bodyStampMatches(body: string): boolean {
  const m = STAMP_LINE.exec(body);
  return m !== null && m[1] === digest(unstampBody(body));
}
