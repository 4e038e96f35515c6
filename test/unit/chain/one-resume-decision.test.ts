import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../../src/bot/api/api-routes.ts";
import type { ApiDeps } from "../../../src/bot/api/api-routes.ts";
import type { WatchedIssue } from "../../../src/bot/tracker-ports.ts";
import { buildDashboardModel, renderDashboard, spliceDashboard } from "../../../src/dashboard/index.ts";
import { createProjection, decideResume, decideResumeFromComments } from "../../../src/projection/index.ts";
import type { CommentRecord, LivenessOptions, TrustPolicy } from "../../../src/projection/index.ts";
import { BUILTIN_PHASE_MAPS, formatCheckpoint, formatControl, formatHealth } from "../../../src/protocol/index.ts";
import { SessionStore } from "../../../src/session-client/index.ts";
import { FakeIssueHost } from "../../helpers/fake-issue-host.ts";

// Issue 18 item 4: the same random histories fed to every reader path must give equal answers:
// the bot's /api/resume (its incremental projection), the library/CLI cold reader (SessionStore.resume,
// which `checkpost resume` calls), the dashboard model (and so `status`), and decideResumeFromComments.

const AGENTS = ["implementation-worker", "reviewer"] as const; // one with a built-in map, one without
const SESSIONS = ["s1", "s2"] as const;
const PHASES = ["clone_complete", "subtask_1_complete", "commit_complete", "odd_phase"] as const;
const TRUSTED = "bot";
const NOW = new Date("2026-12-01T12:00:00Z");

type Step = { gap: number } & (
  | { k: "cp"; agent: number; session: number; phase: number; epoch: number; by: "bot" | "mallory" }
  | { k: "health"; agent: number; session: number }
  | { k: "control"; agent: number; session: number; action: "pause" | "unpause" | "hide" | "release" | "rewind"; back: number }
);

/** Seconds since the previous comment: uneven, so the cadence (the median gap) and so liveness differ per history. */
const gap = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 900 }));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    gap,
    k: fc.constant("cp" as const),
    agent: fc.nat(1),
    session: fc.nat(1),
    phase: fc.nat(3),
    epoch: fc.nat(3),
    by: fc.constantFrom("bot" as const, "bot" as const, "mallory" as const),
  }),
  fc.record({ gap, k: fc.constant("health" as const), agent: fc.nat(1), session: fc.nat(1) }),
  fc.record({
    gap,
    k: fc.constant("control" as const),
    agent: fc.nat(1),
    session: fc.nat(1),
    action: fc.constantFrom("pause" as const, "unpause" as const, "hide" as const, "release" as const, "rewind" as const),
    back: fc.nat(3),
  }),
);

/** A history as comments (ids ascending, each `gap` seconds after the one before; the last at NOW). */
function comments(steps: Step[]): CommentRecord[] {
  const out: CommentRecord[] = [];
  const cps = new Map<string, number[]>();
  let t = NOW.getTime() - steps.reduce((sum, s) => sum + s.gap * 1000, 0);
  steps.forEach((s, i) => {
    const id = 100 + i;
    const agent = AGENTS[s.agent] as string;
    const session = SESSIONS[s.session] as string;
    const at = new Date((t += s.gap * 1000)).toISOString();
    const key = `${agent}/${session}`;
    let body: string;
    let author = TRUSTED;
    if (s.k === "cp") {
      body = formatCheckpoint({ agent, session, phase: PHASES[s.phase] as string, timestamp: at, data: { i }, epoch: s.epoch, seq: i + 1 });
      author = s.by;
      if (author === TRUSTED) cps.set(key, [...(cps.get(key) ?? []), id]);
    } else if (s.k === "health") body = formatHealth({ agent, session, timestamp: at, metrics: { i } });
    else {
      const list = cps.get(key) ?? [];
      const target = list[list.length - 1 - s.back];
      const base = { agent, session, by: "alice", timestamp: at };
      if (s.action === "rewind") body = target === undefined ? formatControl({ ...base, action: "pause" }) : formatControl({ ...base, action: "rewind", target, epoch: 9 });
      else if (s.action === "release") body = formatControl({ ...base, action: "release", epoch: 7 });
      else body = formatControl({ ...base, action: s.action });
    }
    out.push({ id, author, body, createdAt: at, updatedAt: at, htmlUrl: `http://forge/o/r/issues/1#issuecomment-${id}` });
  });
  return out;
}

const policy: TrustPolicy = { trustedAuthors: new Set([TRUSTED]) };

/**
 * A forge holding one open issue. `indexedUpTo`: the bot had folded that many comments and wrote its
 * dashboard with the resume index into the body (the cold reader then reads the index and the tail);
 * undefined: no index (the cold reader reads every comment).
 */
function fakeApi(records: CommentRecord[], indexedUpTo?: number): FakeIssueHost {
  const host = new FakeIssueHost({ login: TRUSTED, now: () => NOW.getTime(), url: "http://forge" });
  let body = "";
  if (indexedUpTo !== undefined) {
    const bot = createProjection(policy);
    bot.replaceAll(records.slice(0, indexedUpTo));
    body = spliceDashboard("", renderDashboard(bot.snapshot(), NOW));
  }
  host.addIssue({ number: 1, title: "t", body, updatedAt: NOW.toISOString() });
  for (const r of records) host.addComment(1, { id: r.id, body: r.body, author: r.author, htmlUrl: r.htmlUrl ?? "", createdAt: r.createdAt, updatedAt: r.updatedAt });
  return host;
}

/** /api/resume as the bot answers it, from a tracker whose projection folded the history event by event. */
function apiResume(records: CommentRecord[], agent: string, session: string, liveness: Partial<LivenessOptions>): Record<string, unknown> {
  const projection = createProjection(policy, { hotRecords: 4 });
  for (const r of [...records].reverse()) projection.apply({ type: "upsert", comment: r }); // any order
  const tracker = { repo: { owner: "o", repo: "r" }, issue: 1, projection, asOf: NOW, successor: undefined } as unknown as WatchedIssue;
  let body = "";
  const res = { writeHead: () => res, end: (t: string) => (body = t) } as unknown as ServerResponse;
  const deps = {
    trackers: () => [tracker],
    ready: () => true,
    metrics: { resumes: { inc: () => {} } },
    config: { liveness, pollIntervalMs: 0, reconcileIntervalMs: 0 },
    now: () => NOW,
  } as unknown as ApiDeps;
  void apiRoutes["/api/resume"]?.(new URL(`http://bot/api/resume?agent=${agent}&session=${session}`), res, deps, {} as never);
  return JSON.parse(body) as Record<string, unknown>;
}

const pick = (r: Record<string, unknown>) => ({
  resume_point: r.resume_point,
  phase: r.phase,
  state: r.state,
  checkpoint: r.checkpoint,
  directive: r.directive,
  not_used: r.not_used,
  mapped: r.mapped,
  next_seq: r.next_seq,
  epoch: r.epoch,
});

describe("one resume decision: every reader path answers the same for random histories", () => {
  it("/api/resume, the cold reader with and without the index (checkpost resume, library), the dashboard/status model and decideResumeFromComments agree, liveness included", async () => {
    const via = { index: 0, full: 0, none: 0 };
    const states = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.nat(40),
        // CHECKPOST_STALE_AFTER_MS set or not: a fixed threshold, else the agent's own cadence.
        fc.option(fc.integer({ min: 1_000, max: 3_600_000 }), { nil: undefined }),
        async (steps, cutAt, staleAfterMs) => {
          const records = comments(steps);
          const lv = { minStaleMs: 60_000, ...(staleAfterMs !== undefined ? { staleAfterMs } : {}) };
          const cut = cutAt % (records.length + 1);
          const snap = createProjection(policy);
          snap.replaceAll(records);
          const model = buildDashboardModel(snap.snapshot(), NOW, { liveness: lv, maxRows: 500 });
          for (const agent of AGENTS)
            for (const session of SESSIONS) {
              const reference = decideResumeFromComments(records, policy, agent, session, { liveness: lv, now: NOW });
              states.add(reference.liveness.state);
              const bot = apiResume(records, agent, session, lv);
              expect(pick(bot), `api ${agent}/${session}`).toEqual(pick(reference as unknown as Record<string, unknown>));
              expect(bot.liveness, `api liveness ${agent}/${session}`).toEqual(reference.liveness);
              const map = reference.map ? { name: agent, map: BUILTIN_PHASE_MAPS[agent] as Record<string, string> } : null;
              // The CLI passes no map for an agent without one; the built-in map for implementation-worker.
              // Without an index (every comment read), and with the bot's index of the first `cut` comments (index + tail).
              for (const indexedUpTo of [undefined, cut]) {
                const store = new SessionStore({ api: fakeApi(records, indexedUpTo), repo: { owner: "o", repo: "r" }, issue: 1, selfLogin: TRUSTED, liveness: lv, now: () => NOW });
                const cold = await store.resume(agent, session, map);
                via[cold.via]++;
                const label = `cold ${indexedUpTo === undefined ? "full" : `index@${indexedUpTo}`} (${cold.via}) ${agent}/${session}`;
                expect(pick(cold as unknown as Record<string, unknown>), label).toEqual(pick(reference as unknown as Record<string, unknown>));
                expect(cold.liveness, label).toEqual(reference.liveness);
              }
              const row = model.sessions.flatMap((g) => g.rows).find((r) => r.entry.agent === agent && r.entry.session === session);
              if (row) {
                expect(row.liveness, `dashboard ${agent}/${session}`).toEqual(reference.liveness);
                expect(row.resumePoint).toBe(reference.checkpoint && reference.mapped ? reference.resume_point : null);
                expect(decideResume(agent, row.entry, { liveness: lv, now: NOW }).directive).toEqual(reference.directive);
              }
            }
        },
      ),
      { numRuns: 60, seed: 18 },
    );
    // The index path must have been taken (else the test compares the full read with itself), and all three states seen.
    expect(via.index).toBeGreaterThan(20);
    expect([...states].sort()).toEqual(["active", "silent", "stale"]);
  });
});
