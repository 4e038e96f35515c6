import { parseComment } from "../protocol/index.ts";

/** The additive provenance line; `carriedFrom` reads it back. */
const provenanceLine = (issue: number, commentId: number) => `\n\n↪ carried over by checkpost from #${issue} (comment ${commentId})`;
const PROVENANCE = /\n\n↪ carried over by checkpost from #(\d+) \(comment (\d+)\)$/;

/**
 * The body of a carried comment: the original, byte for byte, plus one
 * additive line saying where it came from. The line is added only when both
 * readers provably ignore it: ours must parse the result to exactly what it
 * parsed the original to (the line is not a header, and lands after the JSON
 * block's end). The seed's reader only looks at lines starting with its
 * header names and at the first ```json block, so a line after the block is
 * invisible to it too (test/e2e/rollover.test.ts runs it). Otherwise the
 * original body is carried unchanged.
 */
export function carriedBody(original: string, from: { issue: number; commentId: number }): string {
  const line = provenanceLine(from.issue, from.commentId);
  const withLine = original + line;
  const a = parseComment(original);
  const b = parseComment(withLine);
  return a.kind !== "none" && a.kind !== "invalid" && JSON.stringify(a) === JSON.stringify(b) ? withLine : original;
}

/** The original comment id a carried body names, when it was carried from `issue`; else null. */
export function carriedFrom(body: string | null, issue: number): number | null {
  const m = PROVENANCE.exec(body ?? "");
  return m && Number(m[1]) === issue ? Number(m[2]) : null;
}

/** The original comment id a carried body names, whichever issue it came from; else null. */
export function carriedOriginal(body: string | null): number | null {
  const m = PROVENANCE.exec(body ?? "");
  return m ? Number(m[2]) : null;
}

/**
 * The first comment of a chain of copies: a copy carried again at a later rollover keeps the earlier
 * provenance lines and gains one, so the first line names the comment first carried. Null: not a copy.
 */
export function carriedRoot(body: string | null): number | null {
  if (carriedOriginal(body) === null) return null;
  const first = /\n\n↪ carried over by checkpost from #\d+ \(comment (\d+)\)/.exec(body ?? "");
  return first ? Number(first[1]) : null;
}
