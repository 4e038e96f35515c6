import { describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { apiRoutes } from "../../../src/bot/api/api-routes.ts";
import type { ApiDeps } from "../../../src/bot/api/api-routes.ts";
import { createBotMetrics } from "../../../src/bot/bot-metrics.ts";
import type { WatchedIssue } from "../../../src/bot/tracker-ports.ts";
import { createProjection } from "../../../src/projection/index.ts";
import { at, comment, cpBody, policy, up } from "../projection/build-comments.ts";

/** A follower's tracker: what it holds is the watermark; the leader's newer one arrives only by read-through. */
function follower(leads: boolean) {
  const state = { watermark: 10 };
  const t = {
    repo: { owner: "o", repo: "r" },
    issue: 1,
    lease: { current: () => (leads ? { token: 1 } : null) },
    successor: undefined,
    asOf: new Date(),
    projection: { entry: () => null, watermark: () => state.watermark, watermarkUpdatedAt: () => null },
  } as unknown as WatchedIssue;
  return { t, state };
}

async function ask(d: ApiDeps, agent = "implementation-worker"): Promise<{ status: number; body: Record<string, unknown> }> {
  let status = 0;
  let text = "";
  const res = {
    writeHead: (s: number) => {
      status = s;
    },
    end: (b: string) => {
      text = b;
    },
  } as unknown as ServerResponse;
  await (apiRoutes["/api/resume"] as NonNullable<(typeof apiRoutes)[string]>)(new URL(`http://x/api/resume?agent=${agent}&session=s1`), res, d, {} as IncomingMessage);
  return { status, body: JSON.parse(text) as Record<string, unknown> };
}

const deps = (t: WatchedIssue, readThrough?: ApiDeps["readThrough"]): ApiDeps => ({
  trackers: () => [t],
  ready: () => true,
  metrics: createBotMetrics(),
  config: { liveness: { staleAfterMs: 60_000, minStaleMs: 0 } as never, pollIntervalMs: 100, reconcileIntervalMs: 1000 },
  now: () => new Date(),
  ...(readThrough ? { readThrough } : {}),
});

describe("/api/resume on a follower replica", () => {
  it("reads through to what the leader stored before answering", async () => {
    const { t, state } = follower(false);
    const r = await ask(
      deps(t, async () => {
        state.watermark = 12;
      }),
    );
    expect(r.status).toBe(200);
    expect((r.body["freshness"] as { watermark: number }).watermark).toBe(12);
  });

  it("the leader answers from memory (no read-through)", async () => {
    const { t } = follower(true);
    let called = false;
    await ask(
      deps(t, async () => {
        called = true;
      }),
    );
    expect(called).toBe(false);
  });

  it("says the answer may be behind when the shared store does not answer", async () => {
    const { t } = follower(false);
    const r = await ask(
      deps(t, async () => {
        throw new Error("connection refused");
      }),
    );
    expect(r.body["freshness"]).toMatchObject({ may_be_stale: true, watermark: 10 });
    expect(String((r.body["freshness"] as { reason: string }).reason)).toContain("connection refused");
  });
});

describe("/api/resume mid-rollover", () => {
  it("answers from the newest watched issue while its successor is opened but not watched yet (no 400)", async () => {
    const mk = (issue: number, successor: number) =>
      ({
        repo: { owner: "o", repo: "r" },
        issue,
        lease: { current: () => ({ token: 1 }) },
        successor,
        asOf: new Date(),
        projection: { entry: () => null, watermark: () => issue * 10, watermarkUpdatedAt: () => null },
      }) as unknown as WatchedIssue;
    const d = { ...deps(mk(1, 2)), trackers: () => [mk(1, 2), mk(2, 3)] };
    const r = await ask(d);
    expect(r.status).toBe(200);
    expect(r.body["issue"]).toBe(2);
  });
});

describe("/api/resume on a real projection", () => {
  it("answers the snapshot's watermark and time without building a snapshot (a warm call stays cheap)", async () => {
    const p = createProjection(policy);
    p.applyAll([up(comment(3, cpBody())), up(comment(5, "lgtm", { updatedAt: at(3600) }))]);
    const expected = p.snapshot();
    let snapshots = 0;
    const counted = { ...p, snapshot: () => (snapshots++, p.snapshot()) };
    const t = { repo: { owner: "o", repo: "r" }, issue: 1, lease: { current: () => ({ token: 1 }) }, successor: undefined, asOf: new Date(), projection: counted } as unknown as WatchedIssue;
    const r = await ask(deps(t));
    expect(r.status).toBe(200);
    expect(r.body["freshness"]).toMatchObject({ watermark: expected.watermark, watermark_updated_at: expected.watermarkUpdatedAt });
    expect(expected.watermarkUpdatedAt).toBe("2026-11-29T11:00:00.000Z");
    expect((r.body["checkpoint"] as { commentId: number } | null)?.commentId).toBe(3);
    expect(snapshots).toBe(0);
  });
});
