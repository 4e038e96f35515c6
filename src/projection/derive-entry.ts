import type { AgentEntry, Anomaly, AnomalyKind, ControlRef, EntryControl, EntryCounts, HealthState, KindShown, LatestCheckpoint, NotUsedCheckpoint, RecentCheckpoint } from "./projection-snapshot.ts";
import { MAX_INTERVALS, MAX_NOT_USED, RECENT_CHECKPOINTS } from "./projection-snapshot.ts";
import { DEFAULT_LEGACY_WRITERS, isLegacyCheckpoint } from "./legacy-writers.ts";
import type { LegacyWriters } from "./legacy-writers.ts";
import type { StoredRecord } from "./stored-comment.ts";
import { CONTROLS, markerOf } from "../protocol/index.ts";
import type { JsonValue } from "../protocol/index.ts";

export interface DerivedEntry {
  entry: AgentEntry;
  anomalies: Anomaly[];
  /** The trusted signals' server times (ms) the fold holds, in comment-id order (a sealed fold keeps the last MAX_INTERVALS + 1). */
  signals: readonly number[];
}

export interface DeriveOptions {
  /** A legacy writer's checkpoint below a raised fence: a zombie (`fence`, default) or believed (`accept`). */
  legacyWriters?: LegacyWriters;
}

const ACCEPT_HINT = 'set CHECKPOST_LEGACY_WRITERS=accept (library: legacyWriters: "accept") to resume from legacy writers despite the fence';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Fold one agent+session's protocol comments, given in comment-id (server)
 * order, into its entry and anomalies. The trust checks run in this order and
 * the first that fails names the anomaly: author → edited → signature →
 * duplicate Id → zombie epoch. Seq is then checked among believed checkpoints.
 * Trusted `[CONTROL]` comments (same author/edit/signature checks) act in
 * comment order: pause/unpause, hide until the next trusted signal, rewind
 * (the resume point goes back to an earlier believed checkpoint) and release,
 * both raising the epoch fence so a later lower-epoch checkpoint is a zombie.
 * With `legacyWriters: "accept"`, a legacy (1.0) writer's checkpoint below the
 * fence is believed instead; it does not lower the fence, so a checkpost writer
 * below it stays a zombie. Refused checkpoints newer than the resume point are
 * listed in `notUsed` with the reason (and the setting, when one decided).
 */
export function deriveEntry(agent: string, session: string, records: readonly StoredRecord[], options: DeriveOptions = {}): DerivedEntry {
  return finishFold(foldRecords(startFold(agent, session), records, options));
}

/**
 * deriveEntry as a fold, so a bounded projection can keep the state after its
 * older records instead of the records (see sealFold). Plain data: cloneFold copies it.
 */
export interface EntryFold {
  agent: string;
  session: string;
  anomalies: Anomaly[];
  counts: EntryCounts;
  firstById: Map<string, number>;
  maxEpoch: number;
  prevSeq: { seq: number; id: string | undefined } | null;
  latestRecord: Extract<StoredRecord, { kind: "checkpoint" }> | null;
  healthRecord: Extract<StoredRecord, { kind: "health" }> | null;
  signals: number[];
  believed: Extract<StoredRecord, { kind: "checkpoint" }>[];
  control: EntryControl;
  /** Checkpoints not believed, oldest first: `notUsed` lists those newer than the resume point. */
  refused: NotUsedCheckpoint[];
  /** Other kinds' newest trusted comment, by kind name (their registry line's `project` hook). */
  kinds: Record<string, KindShown>;
}

export function startFold(agent: string, session: string): EntryFold {
  return {
    agent,
    session,
    anomalies: [],
    counts: { checkpoints: 0, health: 0, invalid: 0, untrusted: 0 },
    firstById: new Map(),
    maxEpoch: -1,
    prevSeq: null,
    latestRecord: null,
    healthRecord: null,
    signals: [],
    believed: [],
    control: { paused: null, hidden: null, pending: null },
    refused: [],
    kinds: {},
  };
}

export function cloneFold(f: EntryFold): EntryFold {
  return {
    ...f,
    anomalies: [...f.anomalies],
    counts: { ...f.counts },
    firstById: new Map(f.firstById),
    signals: [...f.signals],
    believed: [...f.believed],
    control: { ...f.control },
    refused: [...f.refused],
    kinds: { ...f.kinds },
  };
}

/**
 * Drop what no later record or output reads: the signals before the last
 * MAX_INTERVALS + 1 and the believed checkpoints before the last `keepBelieved`
 * (rewind targets; the projection keeps a rewound-to target unsealed), and the
 * refused checkpoints before the last MAX_NOT_USED (no more are ever listed).
 */
export function sealFold(f: EntryFold, keepBelieved: number): EntryFold {
  if (f.signals.length > MAX_INTERVALS + 1) f.signals.splice(0, f.signals.length - MAX_INTERVALS - 1);
  if (f.refused.length > MAX_NOT_USED) f.refused.splice(0, f.refused.length - MAX_NOT_USED);
  if (f.believed.length > keepBelieved) f.believed.splice(0, f.believed.length - keepBelieved);
  return f;
}

/** Fold records (in comment-id order, all after those already folded) into `f`, in place. */
export function foldRecords(f: EntryFold, records: readonly StoredRecord[], options: DeriveOptions = {}): EntryFold {
  const legacyWriters = options.legacyWriters ?? DEFAULT_LEGACY_WRITERS;
  const { agent, session, anomalies, counts, firstById, signals, believed, control, refused, kinds } = f;
  let { maxEpoch, prevSeq, latestRecord, healthRecord } = f;
  const flag = (r: StoredRecord, kind: AnomalyKind, detail: string) =>
    anomalies.push({ kind, commentId: r.commentId, agent, session, detail, ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) });
  const untrusted = (r: StoredRecord, kind: AnomalyKind, detail: string) => {
    counts.untrusted++;
    flag(r, kind, detail);
  };
  /** A checkpoint not believed: an anomaly, and a not-used candidate with the reason in short. */
  const refuse = (r: Extract<StoredRecord, { kind: "checkpoint" }>, kind: NotUsedCheckpoint["kind"], detail: string, reason: string, extra: Partial<NotUsedCheckpoint> = {}) => {
    untrusted(r, kind, detail);
    const cp = r.checkpoint;
    refused.push({
      commentId: r.commentId,
      ...(cp.id !== undefined ? { id: cp.id } : {}),
      phase: cp.phase,
      ...(cp.epoch !== undefined ? { epoch: cp.epoch } : {}),
      createdAt: iso(r.createdMs),
      ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
      kind,
      legacy: isLegacyCheckpoint(cp),
      reason,
      ...extra,
    });
  };

  for (const r of records) {
    if (r.kind === "invalid") {
      counts.invalid++;
      flag(r, "invalid", `unreadable ${markerOf(r.marker)}: ${r.error}`);
      continue;
    }
    const edited = r.editedByTime || r.version.multi;
    if (r.kind === "extension") {
      // Same author and edit checks as a health signal; the newest trusted one is shown.
      if (!r.trustedAuthor) flag(r, "untrusted-author", `${r.name} from an author outside the trusted list; ignored`);
      else if (edited) flag(r, "edited", `${r.name} was edited after posting; ignored`);
      else kinds[r.name] = { commentId: r.commentId, createdAt: iso(r.createdMs), value: r.value };
      continue;
    }
    if (r.kind === "control") {
      const c = r.control;
      // Controls are not counted as checkpoints; a refused one is still an anomaly a person should see.
      if (!r.trustedAuthor) flag(r, "untrusted-author", `control "${c.action}" from an author outside the trusted list; ignored`);
      else if (edited) flag(r, "edited", `control "${c.action}" was edited after posting; ignored`);
      else if (r.sig === "unsigned") flag(r, "unsigned", `control "${c.action}" has no Signature and a signing key is configured; ignored`);
      else if (r.sig === "bad") flag(r, "bad-signature", `control "${c.action}" has a Signature that does not verify; ignored`);
      else {
        const ref: ControlRef = { commentId: r.commentId, action: c.action, by: c.by ?? null, at: iso(r.createdMs), ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}) };
        // The action's effect is the registry's (protocol/controls); a fence with a target goes back to it.
        const spec = CONTROLS.byName(c.action);
        if (spec?.effect === "pause") control.paused = ref;
        else if (spec?.effect === "unpause") control.paused = null;
        else if (spec?.effect === "hide") control.hidden = ref;
        else if (spec?.effect === "fence" && !spec.target) {
          const epoch = c.epoch as number;
          maxEpoch = Math.max(maxEpoch, epoch);
          control.pending = { ...ref, epoch };
        } else if (spec?.effect === "fence") {
          const epoch = c.epoch as number;
          // Only a checkpoint this entry believed before the command can be gone back to.
          const target = believed.find((b) => b.commentId === c.target);
          if (!target) flag(r, "rejected-control", `${c.action} to comment ${c.target} ignored: not a trusted checkpoint of this agent and session before the command`);
          else {
            maxEpoch = Math.max(maxEpoch, epoch);
            latestRecord = target;
            const t = target.checkpoint;
            control.pending = { ...ref, epoch, to: { commentId: target.commentId, ...(t.id !== undefined ? { id: t.id } : {}), phase: t.phase } };
          }
        }
      }
      continue;
    }
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
        control.hidden = null;
      }
      continue;
    }

    counts.checkpoints++;
    const cp = r.checkpoint;
    const legacy = isLegacyCheckpoint(cp);
    if (!r.trustedAuthor) {
      refuse(r, "untrusted-author", `checkpoint "${cp.phase}" from an author outside the trusted list; not resumable`, "author outside the trusted list (CHECKPOST_TRUSTED_AUTHORS)");
      continue;
    }
    if (edited) {
      refuse(r, "edited", `checkpoint "${cp.phase}" was edited after posting; not resumable`, "edited after posting");
      continue;
    }
    if (r.sig === "unsigned") {
      // The policy cannot help here: a 1.0 writer has no way to sign.
      const reason = legacy ? "legacy writer without Signature while a signing key is configured (a 1.0 writer cannot sign)" : "no Signature while a signing key is configured";
      refuse(r, "unsigned", `checkpoint "${cp.phase}" has no Signature and a signing key is configured; not resumable`, reason);
      continue;
    }
    if (r.sig === "bad") {
      refuse(r, "bad-signature", `checkpoint "${cp.phase}" has a Signature that does not verify; not resumable`, "Signature does not verify");
      continue;
    }
    if (cp.id !== undefined) {
      const first = firstById.get(cp.id);
      if (first !== undefined) {
        refuse(r, "duplicate-id", `Id ${cp.id} already used by comment ${first}; this copy is ignored`, `a copy of comment ${first} (same Id)`);
        continue;
      }
      firstById.set(cp.id, r.commentId);
    }
    const epoch = cp.epoch ?? 0;
    // accept: a legacy writer cannot write Epoch:, so its checkpoint is believed below the fence, which stays where it is.
    const acceptedLegacy = epoch < maxEpoch && legacy && legacyWriters === "accept";
    if (epoch < maxEpoch && !acceptedLegacy) {
      // A 1.0 writer (the seed's agents) cannot write Epoch:, so after a take-over its checkpoints are fenced too: say so.
      if (legacy)
        refuse(
          r,
          "zombie",
          `no Epoch header (a 1.0 writer such as the seed's agents) after a take-over at epoch ${maxEpoch}: fenced off like a superseded worker (CHECKPOST_LEGACY_WRITERS=fence); not resumable`,
          `legacy writer without Epoch below fence ${maxEpoch}`,
          { fence: maxEpoch, policy: { setting: "CHECKPOST_LEGACY_WRITERS", value: "fence", change: ACCEPT_HINT } },
        );
      else if (cp.epoch === undefined)
        refuse(
          r,
          "zombie",
          `no Epoch header after a take-over at epoch ${maxEpoch}: a checkpost writer that did not resume first; not resumable`,
          `checkpost writer without Epoch below fence ${maxEpoch} (it saved without resuming first)`,
          { fence: maxEpoch },
        );
      else
        refuse(
          r,
          "zombie",
          `epoch ${epoch} is below epoch ${maxEpoch} already seen: a superseded worker is still writing; not resumable`,
          `epoch ${epoch} below fence ${maxEpoch}: a superseded worker`,
          {
            fence: maxEpoch,
          },
        );
      continue;
    }
    if (!acceptedLegacy) maxEpoch = epoch;
    if (cp.seq !== undefined) {
      if (prevSeq !== null) {
        if (cp.seq > prevSeq.seq + 1) flag(r, "seq-gap", `seq ${cp.seq} follows seq ${prevSeq.seq}: ${cp.seq - prevSeq.seq - 1} checkpoint(s) missing`);
        else if (cp.seq <= prevSeq.seq && (cp.id === undefined || cp.id !== prevSeq.id))
          flag(r, "seq-fork", `seq ${cp.seq} after seq ${prevSeq.seq}: two writers share this session; the newest comment is the resume point`);
      }
      prevSeq = { seq: cp.seq, id: cp.id };
    }
    latestRecord = r;
    believed.push(r);
    signals.push(r.createdMs);
    control.hidden = null;
    control.pending = null;
  }

  Object.assign(f, { maxEpoch, prevSeq, latestRecord, healthRecord });
  return f;
}

export function finishFold(f: EntryFold): DerivedEntry {
  const { agent, session, latestRecord, healthRecord, signals, believed, control, counts, maxEpoch } = f;
  const intervalsMs: number[] = [];
  const latest = latestRecord && toLatest(latestRecord);
  const health = healthRecord && toHealthState(healthRecord);
  for (let i = Math.max(1, signals.length - MAX_INTERVALS); i < signals.length; i++) intervalsMs.push(Math.max(0, (signals[i] as number) - (signals[i - 1] as number)));
  const last = signals.length ? (signals[signals.length - 1] as number) : null;
  const entry: AgentEntry = { agent, session, latest, maxEpoch: Math.max(0, maxEpoch), counts: { ...counts }, health, lastSignalAt: last === null ? null : iso(last), intervalsMs };
  if (believed.length) entry.recent = believed.slice(-RECENT_CHECKPOINTS).reverse().map(toRecent);
  if (control.paused || control.hidden || control.pending) entry.control = { ...control };
  // Absent in a fold restored from a store written before kinds existed.
  if (f.kinds && Object.keys(f.kinds).length) entry.kinds = { ...f.kinds };
  const after = latestRecord?.commentId ?? 0;
  const notUsed = f.refused.filter((n) => n.commentId > after);
  if (notUsed.length) entry.notUsed = notUsed.slice(-MAX_NOT_USED).reverse();
  return { entry, anomalies: [...f.anomalies], signals };
}

function toLatest(r: Extract<StoredRecord, { kind: "checkpoint" }>): LatestCheckpoint {
  // The recent-checkpoint fields, plus the seed's timestamp and the state to resume with.
  return {
    ...toRecent(r),
    timestamp: r.checkpoint.timestamp,
    // JSON.parse keeps "__proto__" an own property, as the reader does.
    data: JSON.parse(r.checkpoint.dataJson) as JsonValue,
  };
}

function toRecent(r: Extract<StoredRecord, { kind: "checkpoint" }>): RecentCheckpoint {
  const cp = r.checkpoint;
  return {
    commentId: r.commentId,
    ...(cp.id !== undefined ? { id: cp.id } : {}),
    phase: cp.phase,
    ...(cp.seq !== undefined ? { seq: cp.seq } : {}),
    ...(cp.epoch !== undefined ? { epoch: cp.epoch } : {}),
    createdAt: iso(r.createdMs),
    ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
  };
}

function toHealthState(r: Extract<StoredRecord, { kind: "health" }>): HealthState {
  const h = r.health;
  return {
    commentId: r.commentId,
    status: h.status,
    metrics: JSON.parse(h.metricsJson) as JsonValue,
    timestamp: h.timestamp,
    createdAt: iso(r.createdMs),
    ...(r.htmlUrl !== undefined ? { htmlUrl: r.htmlUrl } : {}),
  };
}
