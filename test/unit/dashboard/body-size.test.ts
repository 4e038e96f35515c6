import { describe, expect, it } from "vitest";
import { benchAgentsProjection, sectionAsWritten, tenThousandAgentsProjection } from "../../../bench/body-size.ts";
import { renderDashboard, renderResumeIndex } from "../../../src/dashboard/index.ts";
import { DASHBOARD_SECTION_MAX_BYTES, RESUME_INDEX_INLINE_MAX_BYTES } from "../../../src/bot/upkeep/dashboard-writer.ts";

// Issue 22: every issue_comment delivery and every cold read carries the whole issue body.
// Targets: the dashboard section ≤ 32 KiB at the bench's 20 agents, ≤ 128 KiB at 10,000 agents.

const KiB = 1024;

describe("the issue body stays small", () => {
  it("≤ 32 KiB at the bench's 20 agents, as the writer writes it (index inline only while the section fits)", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    const snap = benchAgentsProjection(now).snapshot();
    const signing = { resumeIndexSigning: { key: "k", scope: "acme/widgets#1" } };
    const section = sectionAsWritten(snap, new Date(now), signing);
    expect(Buffer.byteLength(section)).toBeLessThanOrEqual(DASHBOARD_SECTION_MAX_BYTES);
    expect(DASHBOARD_SECTION_MAX_BYTES).toBe(32 * KiB);
    // The index with its liveness fields (issue 18) fits an older bot's 8 KiB inline cap, but inline it
    // would push the section over the target; the bot keeps every index in its comment anyway.
    expect(RESUME_INDEX_INLINE_MAX_BYTES).toBe(0);
    expect(Buffer.byteLength(renderResumeIndex(snap, signing).text)).toBeLessThanOrEqual(8 * KiB);
    expect(Buffer.byteLength(renderDashboard(snap, new Date(now), signing))).toBeGreaterThan(32 * KiB);
    expect(section).toContain("checkpost:resume-index-ref");
  });

  it("a small fleet's index is in the bot's comment too (the body holds the pointer)", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    const full = benchAgentsProjection(now).snapshot();
    const snap = { ...full, entries: full.entries.slice(0, 10) };
    const section = sectionAsWritten(snap, new Date(now));
    expect(section).not.toContain("checkpost:resume-index ");
    expect(section).toContain("checkpost:resume-index-ref");
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
