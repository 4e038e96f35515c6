import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../../src/bot/api-routes.ts";
import type { ApiDeps } from "../../../src/bot/api-routes.ts";
import type { SessionTracker } from "../../../src/bot/session-tracker.ts";
import { buildDashboardModel } from "../../../src/dashboard/index.ts";
import { createProjection, decideResume, decideResumeFromComments } from "../../../src/projection/index.ts";
import type { CommentRecord, TrustPolicy } from "../../../src/projection/index.ts";
import { formatCheckpoint, formatControl, formatHealth } from "../../../src/protocol/index.ts";
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

type Step =
  | { k: "cp"; agent: number; session: number; phase: number; epoch: number; by: "bot" | "mallory" }
  | { k: "health"; agent: number; session: number }
  | { k: "control"; agent: number; session: number; action: "pause" | "unpause" | "hide" | "release" | "rewind"; back: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    k: fc.constant("cp" as const),
    agent: fc.nat(1),
    session: fc.nat(1),
    phase: fc.nat(3),
    epoch: fc.nat(3),
    by: fc.constantFrom("bot" as const, "bot" as const, "mallory" as const),
  }),
  fc.record({ k: fc.constant("health" as const), agent: fc.nat(1), session: fc.nat(1) }),
  fc.record({
    k: fc.constant("control" as const),
    agent: fc.nat(1),
    session: fc.nat(1),
    action: fc.constantFrom("pause" as const, "unpause" as const, "hide" as const, "release" as const, "rewind" as const),
    back: fc.nat(3),
  }),
);

/** A history as comments (ids ascending, one minute apart). */
function comments(steps: Step[]): CommentRecord[] {
  const out: CommentRecord[] = [];
  const cps = new Map<string, number[]>();
  let t = NOW.getTime() - steps.length * 60_000;
  steps.forEach((s, i) => {
    const id = 100 + i;
    const agent = AGENTS[s.agent] as string;
    const session = SESSIONS[s.session] as string;
    const at = new Date((t += 60_000)).toISOString();
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

/** A forge holding one open issue (no resume index: the cold reader reads every comment). */
function fakeApi(records: CommentRecord[]): FakeIssueHost {
  const host = new FakeIssueHost({ login: TRUSTED, now: () => NOW.getTime(), url: "http://forge" });
  host.addIssue({ number: 1, title: "t" });
  for (const r of records) host.addComment(1, { id: r.id, body: r.body, author: r.author, htmlUrl: r.htmlUrl ?? "", createdAt: r.createdAt, updatedAt: r.updatedAt });
  return host;
}

/** /api/resume as the bot answers it, from a tracker whose projection folded the history event by event. */
function apiResume(records: CommentRecord[], agent: string, session: string): Record<string, unknown> {
  const projection = createProjection(policy, { hotRecords: 4 });
  for (const r of [...records].reverse()) projection.apply({ type: "upsert", comment: r }); // any order
  const tracker = { o: { repo: { owner: "o", repo: "r" }, issue: 1 }, projection, asOf: NOW, successor: undefined } as unknown as SessionTracker;
  let body = "";
  const res = { writeHead: () => res, end: (t: string) => (body = t) } as unknown as ServerResponse;
  const deps = {
    trackers: () => [tracker],
    ready: () => true,
    metrics: { resumes: { inc: () => {} } },
    config: { liveness: { minStaleMs: 60_000 }, pollIntervalMs: 0, reconcileIntervalMs: 0 },
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
  it("/api/resume, the cold reader (checkpost resume, library), the dashboard/status model and decideResumeFromComments agree", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const records = comments(steps);
        const snap = createProjection(policy);
        snap.replaceAll(records);
        const model = buildDashboardModel(snap.snapshot(), NOW, { liveness: { minStaleMs: 60_000 }, maxRows: 500 });
        for (const agent of AGENTS)
          for (const session of SESSIONS) {
            const reference = decideResumeFromComments(records, policy, agent, session, { liveness: { minStaleMs: 60_000 }, now: NOW });
            const bot = apiResume(records, agent, session);
            expect(pick(bot), `api ${agent}/${session}`).toEqual(pick(reference as unknown as Record<string, unknown>));
            expect(bot.liveness).toEqual(reference.liveness);
            const cold = await new SessionStore({ api: fakeApi(records), repo: { owner: "o", repo: "r" }, issue: 1, selfLogin: TRUSTED, now: () => NOW }).resume(agent, session, null);
            // The CLI passes no map for an agent without one; the built-in map for implementation-worker.
            const coldMapped =
              agent === "implementation-worker"
                ? await new SessionStore({ api: fakeApi(records), repo: { owner: "o", repo: "r" }, issue: 1, selfLogin: TRUSTED, now: () => NOW }).resume(
                    agent,
                    session,
                    reference.map ? { name: agent, map: (await import("../../../src/protocol/index.ts")).BUILTIN_PHASE_MAPS[agent] as Record<string, string> } : null,
                  )
                : cold;
            expect(pick(coldMapped as unknown as Record<string, unknown>), `cold ${agent}/${session}`).toEqual(pick(reference as unknown as Record<string, unknown>));
            const row = model.sessions.flatMap((g) => g.rows).find((r) => r.entry.agent === agent && r.entry.session === session);
            if (row) {
              expect(row.liveness, `dashboard ${agent}/${session}`).toEqual(reference.liveness);
              expect(row.resumePoint).toBe(reference.checkpoint && reference.mapped ? reference.resume_point : null);
              expect(decideResume(agent, row.entry, { liveness: { minStaleMs: 60_000 }, now: NOW }).directive).toEqual(reference.directive);
            }
          }
      }),
      { numRuns: 60, seed: 18 },
    );
  });
});
