/** The fault suite: N saves through SessionStore.save while the embedded Forgejo injects faults, then an audit. */
import { parseComment } from "../../../src/protocol/index.ts";
import { newCheckpointId } from "../../../src/session-client/index.ts";
import type { FaultOptions } from "../../../src/embedded-forge/index.ts";
import { startReliabilityWorld, REPO } from "../reliability-world.ts";

export interface FaultFigures {
  saves: number;
  comments_found: number;
  duplicates: number;
  lost: number;
  injected_faults: number;
  retries: number;
  /** Saves that gave up (retries ran out); each is reported to its caller, none should happen here. */
  failed_saves: number;
  /** Comments whose id differs from the one save() returned for that checkpoint. */
  wrong_comment_ids: number;
  /** Agents whose newest trusted checkpoint (read back through the projection) is not their last save. */
  wrong_latest: number;
}
export const FAULTS_MUST_BE_ZERO = ["duplicates", "lost", "failed_saves", "wrong_comment_ids", "wrong_latest"] as const;

/** ≥ 20 % of requests: 5xx 8 %, 429 5 % (Retry-After 0), resets 5 %, commit-then-drop 7 % of writes. */
export const DEFAULT_FAULTS: FaultOptions = { errorRate: 0.08, rateLimitRate: 0.05, retryAfterSec: 0, resetRate: 0.05, commitThenDropRate: 0.07 };

export interface FaultRun {
  figures: FaultFigures;
  requests: number;
  faultKinds: Record<string, number>;
  elapsedMs: number;
}

export async function runFaults(options: { saves: number; concurrency?: number; seed?: number; faults?: FaultOptions }): Promise<FaultRun> {
  const started = performance.now();
  const world = await startReliabilityWorld({ seed: options.seed ?? 1 });
  try {
    let retries = 0;
    const issued = new Set<string>();
    const store = world.store({
      newId: () => {
        const id = newCheckpointId();
        issued.add(id);
        return id;
      },
      client: { logger: { debug: () => {}, warn: () => void retries++ } },
    });
    world.forge.admin.resetStats();
    world.forge.admin.setFaults(options.faults ?? DEFAULT_FAULTS);

    const concurrency = Math.max(1, Math.min(options.concurrency ?? 8, options.saves));
    const saved = new Map<string, number>(); // checkpoint id → comment id save() returned
    const lastPhase = new Map<string, string>(); // agent → phase of its last successful save
    let failed = 0;
    let next = 0;
    const worker = async (w: number) => {
      const agent = `fault-worker-${w}`;
      for (let i = next++; i < options.saves; i = next++) {
        const phase = `step_${i}_complete`;
        try {
          const r = await store.save({ agent, session: "fault-session", phase, data: { i, worker: w, note: "ünïcødé ✓", list: [i, i * 2] } });
          saved.set(r.checkpoint.id as string, r.comment_id);
          lastPhase.set(agent, phase);
        } catch {
          failed++;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));

    const stats = world.forge.admin.stats();
    world.forge.admin.resetFaults();
    const comments = await world.api().listCommentsSince(REPO, world.issue);
    const byId = new Map<string, number[]>();
    for (const c of comments) {
      const p = parseComment(c.body);
      if (p.kind !== "checkpoint" || p.checkpoint.id === undefined || !issued.has(p.checkpoint.id)) continue;
      byId.set(p.checkpoint.id, [...(byId.get(p.checkpoint.id) ?? []), c.id]);
    }
    let duplicates = 0;
    let found = 0;
    for (const ids of byId.values()) {
      found += ids.length;
      duplicates += ids.length - 1;
    }
    let lost = 0;
    let wrongIds = 0;
    for (const [id, commentId] of saved) {
      const ids = byId.get(id);
      if (!ids) lost++;
      else if (!ids.includes(commentId)) wrongIds++;
    }
    const snapshot = await world.store().snapshot();
    let wrongLatest = 0;
    for (const [agent, phase] of lastPhase) {
      const entry = snapshot.entries.find((e) => e.agent === agent && e.session === "fault-session");
      if (entry?.latest?.phase !== phase) wrongLatest++;
    }
    const injected = Object.values(stats.faults).reduce((a, b) => a + b, 0);
    return {
      figures: {
        saves: saved.size,
        comments_found: found,
        duplicates,
        lost,
        injected_faults: injected,
        retries,
        failed_saves: failed,
        wrong_comment_ids: wrongIds,
        wrong_latest: wrongLatest,
      },
      requests: stats.totalRequests,
      faultKinds: stats.faults,
      elapsedMs: performance.now() - started,
    };
  } finally {
    await world.close();
  }
}
