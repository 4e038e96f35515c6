import { describe, expect, it } from "vitest";
import { benchAgentsProjection, tenThousandAgentsProjection } from "../../../bench/body-size.ts";
import { renderDashboard, renderResumeIndex } from "../../../src/dashboard/index.ts";

// Issue 22: every issue_comment delivery and every cold read carries the whole issue body.
// Targets: the dashboard section ≤ 32 KiB at the bench's 20 agents, ≤ 128 KiB at 10,000 agents.

const KiB = 1024;

describe("the issue body stays small", () => {
  it("≤ 32 KiB at the bench's 20 agents (inline index included)", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    const snap = benchAgentsProjection(now).snapshot();
    const signing = { resumeIndexSigning: { key: "k", scope: "acme/widgets#1" } };
    // The bot keeps the index in its comment by default; inline (an older bot's body) it still fits.
    expect(Buffer.byteLength(renderResumeIndex(snap, signing).text)).toBeLessThanOrEqual(8 * KiB);
    expect(Buffer.byteLength(renderDashboard(snap, new Date(now), signing))).toBeLessThanOrEqual(32 * KiB);
  });

  it("≤ 128 KiB at 10,000 agents, where the index (over 1 MB) is in its comment", () => {
    const t0 = Date.parse("2026-12-01T00:00:00Z");
    const snap = tenThousandAgentsProjection(t0).snapshot();
    const index = renderResumeIndex(snap);
    expect(Buffer.byteLength(index.text)).toBeGreaterThan(1024 * KiB);
    const body = renderDashboard(snap, new Date(t0 + 10_001_000), { resumeIndexRef: { comment: 10_001, since: index.since ?? "" } });
    expect(body).toContain("checkpost:resume-index-ref");
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(128 * KiB);
  });
});
