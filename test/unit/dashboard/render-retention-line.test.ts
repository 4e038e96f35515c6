import { describe, expect, it } from "vitest";
import { renderDashboard, renderRetentionLine } from "../../../src/dashboard/index.ts";

describe("the dashboard's retention line", () => {
  it("says the size, the next rollover point, the chain links and what compaction removed, with the archive link", () => {
    const line = renderRetentionLine({
      comments: 412,
      rolloverAt: 1000,
      predecessor: 3,
      healthRetentionMs: 86_400_000,
      compaction: { deleted: 120, archived: 120, archiveUrl: "http://forge/attachments/u-1" },
    });
    expect(line).toBe(
      "**Retention:** 412 of 1,000 comments before this issue rolls over to a new one · continues #3 · compaction removed 120 superseded health signals older than 1d (120 archived: [latest archive](http://forge/attachments/u-1)).",
    );
  });

  it("says when rollover or compaction is off, and where a rolled-over issue continues", () => {
    expect(renderRetentionLine({ comments: 5, rolloverAt: 0, healthRetentionMs: 0 })).toBe("**Retention:** 5 comments (rollover off) · health compaction off.");
    expect(renderRetentionLine({ comments: 1001, rolloverAt: 1000, successor: 9, healthRetentionMs: 3_600_000 })).toMatch(
      /^\*\*Retention:\*\* 1,001 comments; continued in #9 · superseded health signals older than 1h are archived, then removed\.$/,
    );
  });

  it("never links an unsafe archive URL, and renderDashboard includes the line only when given", () => {
    expect(renderRetentionLine({ comments: 1, rolloverAt: 10, healthRetentionMs: 1000, compaction: { deleted: 1, archived: 1, archiveUrl: "javascript:alert(1)" } })).not.toContain("javascript:");
    const snap = { v: 1 as const, watermark: 0, watermarkUpdatedAt: null, comments: 0, entries: [], anomalies: [] };
    const now = new Date("2026-11-29T10:00:00Z");
    expect(renderDashboard(snap, now)).not.toContain("**Retention:**");
    expect(renderDashboard(snap, now, { retention: { comments: 0, rolloverAt: 1000, healthRetentionMs: 0 } })).toContain("**Retention:** 0 of 1,000 comments");
  });
});
