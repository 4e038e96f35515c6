import { describe, expect, it } from "vitest";
import { benchAgentsProjection } from "../../../bench/body-size.ts";
import { renderResumeIndex, resumeIndexCommentContent } from "../../../src/dashboard/index.ts";
import { RESUME_INDEX_COMMENT_HEAD } from "../../../src/bot/upkeep/dashboard-writer.ts";
import { formatCheckpoint, pythonUtcIsoformat } from "../../../src/protocol/index.ts";

// A restarted bot compares its index comment's content with what it would write, and rewrites it only
// when they differ (src/bot/upkeep/dashboard-writer.ts): the comparison must see equal content as equal
// whatever the watermark and signature, and any change of an entry as a change.

describe("the content of an index comment", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const signing = { resumeIndexSigning: { key: "k", scope: "acme/widgets#1" } };

  it("is what the writer renders, signed or not, and does not depend on the watermark", () => {
    const p = benchAgentsProjection(now);
    const ix = renderResumeIndex(p.snapshot(), signing);
    expect(resumeIndexCommentContent(`${RESUME_INDEX_COMMENT_HEAD}\n\n${ix.text}`)).toBe(ix.content);
    expect(resumeIndexCommentContent(`${RESUME_INDEX_COMMENT_HEAD}\n\n${renderResumeIndex(p.snapshot()).text}`)).toBe(ix.content);
    // A comment that moves only the watermark (a chatter comment) has the same content.
    const before = p.snapshot();
    p.apply({ type: "upsert", comment: { id: before.watermark + 1, author: "someone", body: "chatter", createdAt: new Date(now).toISOString(), updatedAt: new Date(now + 5000).toISOString() } });
    const later = renderResumeIndex(p.snapshot(), signing);
    expect(later.text).not.toBe(ix.text);
    expect(resumeIndexCommentContent(`${RESUME_INDEX_COMMENT_HEAD}\n\n${later.text}`)).toBe(ix.content);
  });

  it("changes with an entry, and is null for a comment that holds no single index", () => {
    const p = benchAgentsProjection(now);
    const ix = renderResumeIndex(p.snapshot(), signing);
    const agent = p.snapshot().entries[0]!;
    const body = formatCheckpoint({ agent: agent.agent, session: agent.session, phase: "later", timestamp: pythonUtcIsoformat(new Date(now + 9000)), data: {} });
    p.apply({ type: "upsert", comment: { id: p.snapshot().watermark + 1, author: "agent", body, createdAt: new Date(now + 9000).toISOString(), updatedAt: new Date(now + 9000).toISOString() } });
    const next = renderResumeIndex(p.snapshot(), signing);
    expect(next.content).not.toBe(ix.content);
    expect(resumeIndexCommentContent(next.text)).toBe(next.content);
    expect(resumeIndexCommentContent("just a comment")).toBeNull();
    expect(resumeIndexCommentContent(`${ix.text}\n${ix.text}`)).toBeNull();
  });
});
