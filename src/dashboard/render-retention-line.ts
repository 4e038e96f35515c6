import { formatDuration } from "../util/format-duration.ts";
import { safeUrl } from "./escape-markdown.ts";

/** What the dashboard says about the issue's size and what retention did (docs/retention.md). */
export interface RetentionInfo {
  /** Live comments on this issue. */
  comments: number;
  /** Comments at which it rolls over (0: never). */
  rolloverAt: number;
  /** The issue this one continues. */
  predecessor?: number;
  /** The issue that continues this one, once rolled over. */
  successor?: number;
  /** Superseded health kept this long (0: compaction off). */
  healthRetentionMs: number;
  compaction?: { deleted: number; archived: number; archiveUrl?: string };
}

const n = (x: number) => x.toLocaleString("en-US");

/** One Markdown line: size, next rollover point, chain links, compaction counts and archive link. Pure. */
export function renderRetentionLine(r: RetentionInfo): string {
  const parts = [r.rolloverAt > 0 ? `${n(r.comments)} of ${n(r.rolloverAt)} comments before this issue rolls over to a new one` : `${n(r.comments)} comments (rollover off)`];
  if (r.successor !== undefined) parts[0] = `${n(r.comments)} comments; continued in #${r.successor}`;
  if (r.predecessor !== undefined) parts.push(`continues #${r.predecessor}`);
  if (r.healthRetentionMs > 0) {
    const c = r.compaction;
    const url = c?.archiveUrl ? safeUrl(c.archiveUrl) : null;
    parts.push(
      c && c.deleted > 0
        ? `compaction removed ${n(c.deleted)} superseded health signal${c.deleted === 1 ? "" : "s"} older than ${formatDuration(r.healthRetentionMs)} (${n(c.archived)} archived${url ? `: [latest archive](${url})` : ""})`
        : `superseded health signals older than ${formatDuration(r.healthRetentionMs)} are archived, then removed`,
    );
  } else parts.push("health compaction off");
  return `**Retention:** ${parts.join(" · ")}.`;
}
