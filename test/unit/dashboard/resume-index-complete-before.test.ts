import { describe, expect, it } from "vitest";
import { benchAgentsProjection } from "../../../bench/body-size.ts";
import { extractResumeIndexFromComment, renderResumeIndex, resumeIndexScope, resumeIndexTailSinceMs } from "../../../src/dashboard/index.ts";
import { RawResumeIndexSchema } from "../../../src/dashboard/resume-index.ts";

// Issue 32: the index's "complete up to" time (`completeBefore`): every comment updated before it had
// been read when the bot wrote the index, so a cold reader lists the tail from it instead of from the
// watermark's own second, which holds comments the index already covers.

describe("the resume index's complete-up-to time", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const signing = { key: "k", scope: resumeIndexScope("acme", "widgets", 1) };

  it("is written as a whole second, only when later than the watermark's second, and is not content", () => {
    const snap = benchAgentsProjection(now).snapshot();
    const wm = Date.parse(snap.watermarkUpdatedAt ?? "");
    const plain = renderResumeIndex(snap, { resumeIndexSigning: signing });
    const later = renderResumeIndex(snap, { resumeIndexSigning: signing, completeBeforeMs: wm + 3_456 });
    const ix = extractResumeIndexFromComment(later.text, { signing });
    expect(ix?.completeBefore).toBe(new Date(Math.floor((wm + 3_456) / 1000) * 1000).toISOString());
    // An advance of the claim alone is not a change the bot rewrites its index comment for.
    expect(later.content).toBe(plain.content);
    // The watermark's own second says nothing more than the watermark: left out.
    const same = extractResumeIndexFromComment(renderResumeIndex(snap, { completeBeforeMs: Math.floor(wm / 1000) * 1000 + 999 }).text);
    expect(same?.completeBefore).toBeUndefined();
    expect(extractResumeIndexFromComment(plain.text)?.completeBefore).toBeUndefined();
  });

  it("is covered by the signature, and a reader that does not know it still reads the index", () => {
    const snap = benchAgentsProjection(now).snapshot();
    const wm = Date.parse(snap.watermarkUpdatedAt ?? "");
    const text = renderResumeIndex(snap, { resumeIndexSigning: signing, completeBeforeMs: wm + 5_000 }).text;
    expect(extractResumeIndexFromComment(text, { signing })).not.toBeNull();
    const moved = text.replace(/"completeBefore":"[^"]+"/, `"completeBefore":"${new Date(wm + 3_600_000).toISOString()}"`);
    expect(moved).not.toBe(text);
    expect(extractResumeIndexFromComment(moved, { signing })).toBeNull();
    // An older reader's schema had no such key: zod's object strips unknown keys, so the index still parses.
    const json = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as Record<string, unknown>;
    expect(json["completeBefore"]).toBeDefined();
    expect(RawResumeIndexSchema.omit({ completeBefore: true }).safeParse(json).success).toBe(true);
  });

  it("starts the tail only when later than the watermark and not after the index was written", () => {
    const watermarkUpdatedAt = "2026-12-01T12:00:00.000Z";
    const wm = Date.parse(watermarkUpdatedAt);
    expect(resumeIndexTailSinceMs({ watermarkUpdatedAt }, "2026-12-01T12:00:09Z")).toBe(wm);
    expect(resumeIndexTailSinceMs({ watermarkUpdatedAt, completeBefore: "2026-12-01T12:00:05.000Z" }, "2026-12-01T12:00:09Z")).toBe(wm + 5_000);
    expect(resumeIndexTailSinceMs({ watermarkUpdatedAt, completeBefore: "2026-12-01T12:00:05.000Z" }, "2026-12-01T12:00:05Z")).toBe(wm + 5_000);
    // A claim later than the index's holder was updated is not the bot's (it writes after the read): ignored.
    expect(resumeIndexTailSinceMs({ watermarkUpdatedAt, completeBefore: "2026-12-01T12:00:10.000Z" }, "2026-12-01T12:00:09Z")).toBe(wm);
    // Earlier than the watermark: the watermark (never a longer tail than before).
    expect(resumeIndexTailSinceMs({ watermarkUpdatedAt, completeBefore: "2026-12-01T11:59:00.000Z" }, "2026-12-01T12:00:09Z")).toBe(wm);
  });
});
