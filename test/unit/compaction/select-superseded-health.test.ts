import { describe, expect, it } from "vitest";
import { selectSupersededHealth, supersededHealthSelector } from "../../../src/compaction/select-superseded-health.ts";
import { formatCheckpoint, formatHealth } from "../../../src/protocol/index.ts";
import type { CommentRecord } from "../../../src/projection/index.ts";

const t0 = Date.parse("2026-12-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const policy = { trustedAuthors: new Set(["agent"]) };

/** 3 agents × 100 health signals (more than the bounded projection keeps) plus checkpoints and a stranger's health. */
function comments(): CommentRecord[] {
  const out: CommentRecord[] = [];
  let id = 0;
  for (let i = 0; i < 100; i++)
    for (const agent of ["a", "b", "c"]) {
      const at = t0 + ++id * 60_000;
      const body =
        i % 10 === 9 ? formatCheckpoint({ agent, session: "s1", phase: "p", timestamp: iso(at), data: { i } }) : formatHealth({ agent, session: "s1", timestamp: iso(at), metrics: { i } as never });
      out.push({ id, author: id % 50 === 0 ? "stranger" : "agent", body, createdAt: iso(at), updatedAt: iso(at) });
    }
  return out;
}

describe("superseded health, page by page (the bot's compaction)", () => {
  const all = comments();
  const nowMs = t0 + 400 * 60_000;
  const retentionMs = 60 * 60_000;

  it("selects the same comments page by page as from the whole list", () => {
    const whole = selectSupersededHealth(all, policy, nowMs, retentionMs);
    const s = supersededHealthSelector(policy, nowMs, retentionMs);
    for (let i = 0; i < all.length; i += 37) s.add(all.slice(i, i + 37));
    expect(s.selected().map((c) => c.id)).toEqual(whole.map((c) => c.id));
    expect(whole.length).toBeGreaterThan(150);
  });

  it("keeps each agent's newest trusted health, checkpoints, strangers' comments and recent ones", () => {
    const ids = new Set(selectSupersededHealth(all, policy, nowMs, retentionMs).map((c) => c.id));
    const byId = new Map(all.map((c) => [c.id, c]));
    for (const agent of ["a", "b", "c"]) {
      const newest = all.filter((c) => c.author === "agent" && c.body.startsWith(`[HEALTH] ${agent}\n`)).pop();
      expect(newest && ids.has(newest.id)).toBe(false);
    }
    for (const id of ids) {
      const c = byId.get(id) as CommentRecord;
      expect(c.author).toBe("agent");
      expect(c.body.startsWith("[HEALTH]")).toBe(true);
      expect(nowMs - Date.parse(c.createdAt)).toBeGreaterThan(retentionMs);
    }
  });
});
