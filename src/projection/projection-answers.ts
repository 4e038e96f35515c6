import type { PhaseMap } from "../protocol/index.ts";
import { compareCodePoints } from "../protocol/index.ts";
import { cloneFold, deriveEntry, finishFold, foldRecords } from "./derive-entry.ts";
import type { DerivedEntry } from "./derive-entry.ts";
import { entryKey } from "./entry-key.ts";
import { refreshWatermark } from "./fold-comments.ts";
import type { AgentEntry, Anomaly, LatestCheckpoint, ProjectionSnapshot, ResumeAnswer } from "./projection-snapshot.ts";
import type { KeyState, ProjectionState } from "./projection-state.ts";
import { resumeAnswerOf } from "./resume-answer.ts";
import type { StoredRecord } from "./stored-comment.ts";

/** What a projection answers: entries derived lazily (only dirty ones), the snapshot, resume points, anomalies. */

/** Untrusted authors listed one line each in `anomalies()`; beyond this they are summed in one line. */
export const MAX_UNTRUSTED_AUTHORS_LISTED = 100;

const derived = (s: ProjectionState, k: KeyState): DerivedEntry => {
  if (!k.derived) {
    const records = k.ids.map((id) => s.live.record(id)).filter((r): r is StoredRecord => r != null);
    // A stale entry is served from its last fold and held records until `hydrate` (best effort, briefly).
    k.derived = k.fold ? finishFold(foldRecords(cloneFold(k.fold), records, s.derive)) : deriveEntry(k.agent, k.session, records, s.derive);
  }
  return k.derived;
};

/**
 * Anomalies of trusted authors' comments (by comment id), then one line per
 * untrusted author (by their newest comment), at most
 * MAX_UNTRUSTED_AUTHORS_LISTED of them and a sum of the rest: a flood of
 * untrusted comments cannot push a real anomaly out of sight.
 */
export const anomalies = (s: ProjectionState): Anomaly[] => {
  const all: Anomaly[] = [...s.unkeyed.values()];
  for (const k of s.keys.values()) all.push(...derived(s, k).anomalies);
  for (const t of s.tombs.values()) if (t.deleted) all.push(t.deleted);
  all.sort((a, b) => a.commentId - b.commentId || compareCodePoints(a.kind, b.kind));
  const authors = [...s.untrustedAuthors.values()]
    .map((t) => {
      let last = 0;
      for (const id of t.ids.keys()) if (id > last) last = id;
      return { t, last, seen: t.ids.get(last) as { login: string; htmlUrl: string | undefined } };
    })
    .sort((a, b) => b.last - a.last);
  const listed = authors.slice(0, MAX_UNTRUSTED_AUTHORS_LISTED).reverse();
  const rest = authors.slice(MAX_UNTRUSTED_AUTHORS_LISTED);
  if (rest.length) {
    let n = 0;
    for (const a of rest) n += a.t.ids.size;
    all.push({
      kind: "untrusted-author",
      commentId: (rest[0] as (typeof rest)[number]).last,
      agent: null,
      session: null,
      detail: `${rest.length} more untrusted authors wrote ${comments(n)}; ignored`,
    });
  }
  for (const { t, last, seen } of listed) {
    const over = t.oversized.size ? `, ${t.oversized.size} over the size limit,` : "";
    all.push({
      kind: "untrusted-author",
      commentId: last,
      agent: null,
      session: null,
      detail: `${comments(t.ids.size)}${over} by ${seen.login}, who is not a trusted author; ignored`,
      ...(seen.htmlUrl !== undefined ? { htmlUrl: seen.htmlUrl } : {}),
      author: seen.login,
    });
  }
  return all;
};

export const latest = (s: ProjectionState, agent: string, session?: string): LatestCheckpoint | null => {
  if (session !== undefined) {
    const k = s.keys.get(entryKey(agent, session));
    return k ? derived(s, k).entry.latest : null;
  }
  let best: LatestCheckpoint | null = null;
  for (const k of s.keys.values()) {
    if (k.agent !== agent) continue;
    const l = derived(s, k).entry.latest;
    if (l && (!best || l.commentId > best.commentId)) best = l;
  }
  return best;
};

/** The snapshot's `watermarkUpdatedAt` alone: no entry derived, nothing sorted. */
export const watermarkUpdatedAt = (s: ProjectionState): string | null => {
  refreshWatermark(s);
  return s.live.size ? new Date(s.maxUpdatedMs).toISOString() : null;
};

export const snapshot = (s: ProjectionState): ProjectionSnapshot => {
  refreshWatermark(s);
  const entries = [...s.keys.values()].map((k) => derived(s, k).entry).sort((a, b) => compareCodePoints(a.agent, b.agent) || compareCodePoints(a.session, b.session));
  return {
    v: 1,
    watermark: s.maxId,
    watermarkUpdatedAt: watermarkUpdatedAt(s),
    comments: s.live.size,
    entries,
    anomalies: anomalies(s),
  };
};

export const resume = (s: ProjectionState, agent: string, session: string, phaseMap: Readonly<PhaseMap>): ResumeAnswer => {
  const k = s.keys.get(entryKey(agent, session));
  return resumeAnswerOf(k ? derived(s, k).entry : null, phaseMap);
};

export const entry = (s: ProjectionState, agent: string, session: string): AgentEntry | null => {
  const k = s.keys.get(entryKey(agent, session));
  return k ? derived(s, k).entry : null;
};

export const signalTimes = (s: ProjectionState, agent: string, session: string): readonly number[] => {
  const k = s.keys.get(entryKey(agent, session));
  return k ? derived(s, k).signals : [];
};

export const watermark = (s: ProjectionState): number => {
  refreshWatermark(s);
  return s.maxId;
};

const comments = (n: number) => `${n} protocol comment${n === 1 ? "" : "s"}`;
