import type { AgentEntry, Anomaly, AnomalyKind, HealthState, LatestCheckpoint } from "./projection-snapshot.ts";
import { MAX_INTERVALS } from "./projection-snapshot.ts";
import type { StoredRecord } from "./stored-comment.ts";
import type { JsonValue } from "../protocol/index.ts";

export interface DerivedEntry {
  entry: AgentEntry;
  anomalies: Anomaly[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Fold one agent+session's protocol comments, given in comment-id (server)
 * order, into its entry and anomalies. The trust checks run in this order and
 * the first that fails names the anomaly: author → edited → signature →
 * duplicate Id → zombie epoch. Seq is then checked among believed checkpoints.
 */
export function deriveEntry(agent: string, session: string, records: readonly StoredRecord[]): DerivedEntry {
  const anomalies: Anomaly[] = [];
  const flag = (r: StoredRecord, kind: AnomalyKind, detail: string) =>
    anomalies.push({ kind, commentId: r.commentId, agent, session, detail, ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) });
  const counts = { checkpoints: 0, health: 0, invalid: 0, untrusted: 0 };
  const untrusted = (r: StoredRecord, kind: AnomalyKind, detail: string) => {
    counts.untrusted++;
    flag(r, kind, detail);
  };
  const firstById = new Map<string, number>();
  let maxEpoch = -1;
  let prevSeq: { seq: number; id: string | undefined } | null = null;
  let latestRecord: Extract<StoredRecord, { kind: "checkpoint" }> | null = null;
  let healthRecord: Extract<StoredRecord, { kind: "health" }> | null = null;
  const signals: number[] = [];

  for (const r of records) {
    if (r.kind === "invalid") {
      counts.invalid++;
      flag(r, "invalid", `unreadable ${r.marker === "checkpoint" ? "[CHECKPOINT]" : "[HEALTH]"}: ${r.error}`);
      continue;
    }
    const edited = r.editedByTime || r.version.multi;
    if (r.kind === "health") {
      counts.health++;
      if (!r.trustedAuthor) {
        counts.untrusted++;
        flag(r, "untrusted-author", "health signal from an author outside the trusted list; ignored");
      } else if (edited) {
        counts.untrusted++;
        flag(r, "edited", "health signal was edited after posting; ignored");
      } else {
        healthRecord = r;
        signals.push(r.createdMs);
      }
      continue;
    }

    counts.checkpoints++;
    const cp = r.checkpoint;
    if (!r.trustedAuthor) {
      untrusted(r, "untrusted-author", `checkpoint "${cp.phase}" from an author outside the trusted list; not resumable`);
      continue;
    }
    if (edited) {
      untrusted(r, "edited", `checkpoint "${cp.phase}" was edited after posting; not resumable`);
      continue;
    }
    if (r.sig === "unsigned") {
      untrusted(r, "unsigned", `checkpoint "${cp.phase}" has no Signature and a signing key is configured; not resumable`);
      continue;
    }
    if (r.sig === "bad") {
      untrusted(r, "bad-signature", `checkpoint "${cp.phase}" has a Signature that does not verify; not resumable`);
      continue;
    }
    if (cp.id !== undefined) {
      const first = firstById.get(cp.id);
      if (first !== undefined) {
        untrusted(r, "duplicate-id", `Id ${cp.id} already used by comment ${first}; this copy is ignored`);
        continue;
      }
      firstById.set(cp.id, r.commentId);
    }
    const epoch = cp.epoch ?? 0;
    if (epoch < maxEpoch) {
      untrusted(r, "zombie", `epoch ${epoch} is below epoch ${maxEpoch} already seen: a superseded worker is still writing; not resumable`);
      continue;
    }
    maxEpoch = epoch;
    if (cp.seq !== undefined) {
      if (prevSeq !== null) {
        if (cp.seq > prevSeq.seq + 1) flag(r, "seq-gap", `seq ${cp.seq} follows seq ${prevSeq.seq}: ${cp.seq - prevSeq.seq - 1} checkpoint(s) missing`);
        else if (cp.seq <= prevSeq.seq && (cp.id === undefined || cp.id !== prevSeq.id))
          flag(r, "seq-fork", `seq ${cp.seq} after seq ${prevSeq.seq}: two writers share this session; the newest comment is the resume point`);
      }
      prevSeq = { seq: cp.seq, id: cp.id };
    }
    latestRecord = r;
    signals.push(r.createdMs);
  }

  const intervalsMs: number[] = [];
  const latest = latestRecord && toLatest(latestRecord);
  const health = healthRecord && toHealthState(healthRecord);
  for (let i = Math.max(1, signals.length - MAX_INTERVALS); i < signals.length; i++)
    intervalsMs.push(Math.max(0, (signals[i] as number) - (signals[i - 1] as number)));
  const last = signals.length ? (signals[signals.length - 1] as number) : null;
  return {
    entry: { agent, session, latest, maxEpoch: Math.max(0, maxEpoch), counts, health, lastSignalAt: last === null ? null : iso(last), intervalsMs },
    anomalies,
  };
}

function toLatest(r: Extract<StoredRecord, { kind: "checkpoint" }>): LatestCheckpoint {
  const cp = r.checkpoint;
  return {
    commentId: r.commentId,
    ...(cp.id !== undefined ? { id: cp.id } : {}),
    phase: cp.phase,
    ...(cp.seq !== undefined ? { seq: cp.seq } : {}),
    ...(cp.epoch !== undefined ? { epoch: cp.epoch } : {}),
    timestamp: cp.timestamp,
    createdAt: iso(r.createdMs),
    // JSON.parse keeps "__proto__" an own property, as the reader does.
    data: JSON.parse(cp.dataJson) as JsonValue,
    ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
  };
}

function toHealthState(r: Extract<StoredRecord, { kind: "health" }>): HealthState {
  const h = r.health;
  return { commentId: r.commentId, status: h.status, metrics: JSON.parse(h.metricsJson) as JsonValue, timestamp: h.timestamp, createdAt: iso(r.createdMs), ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) };
}
