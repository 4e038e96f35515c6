import type { Logger } from "pino";
import type { Anomaly } from "../projection/index.ts";
import { ignoredAuthorsText } from "../dashboard/index.ts";

/** How many anomaly keys a process remembers; past this the oldest are forgotten (and would be logged again if seen). */
export const ANOMALY_LOG_MEMORY = 10_000;

/**
 * Logs each distinct anomaly once per process. The projection re-derives its
 * anomalies on every change, poll and reconcile, so logging what it lists would
 * repeat the same lines forever. An anomaly is the same when its issue, kind and
 * comment are; an untrusted author's line is keyed by the author (its comment id
 * moves to their newest comment), so a flood from one login is one line.
 */
export class AnomalyLog {
  private readonly seen = new Set<string>();

  /** `trustedAuthors`: CHECKPOST_TRUSTED_AUTHORS, so an ignored author's line names the setting that admits it. */
  constructor(
    private readonly memory = ANOMALY_LOG_MEMORY,
    private readonly trustedAuthors: readonly string[] = [],
  ) {}

  /** Log (to `logger`, which already names the issue) the anomalies of `issue` not logged before; returns how many were new. */
  note(logger: Pick<Logger, "warn">, issue: string, anomalies: readonly Anomaly[]): number {
    let fresh = 0;
    for (const a of anomalies) {
      // Per-author lines carry the author; the one "N more untrusted authors" line is one anomaly whatever N.
      const who = a.kind === "untrusted-author" && a.agent === null ? `author:${a.author?.toLowerCase() ?? "(more)"}` : a.commentId;
      const key = JSON.stringify([issue, a.kind, who]);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      // A Set iterates in insertion order: the first key is the oldest.
      if (this.seen.size > this.memory) this.seen.delete(this.seen.values().next().value as string);
      fresh++;
      // An ignored author: the dashboard's sentence, with the exact setting (an agent missing from the list is the usual cause).
      const fix = a.kind === "untrusted-author" && a.author !== undefined ? ignoredAuthorsText({ authors: [a.author], more: 0 }, this.trustedAuthors) : null;
      logger.warn(
        { kind: a.kind, commentId: a.commentId, agent: a.agent, session: a.session, ...(a.htmlUrl !== undefined ? { htmlUrl: a.htmlUrl } : {}), ...(fix !== null ? { fix } : {}) },
        `anomaly: ${a.detail}${fix !== null ? `. ${fix}` : ""}`,
      );
    }
    return fresh;
  }
}
