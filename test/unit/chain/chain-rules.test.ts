import { describe, expect, it } from "vitest";
import { adoptableSuccessor, continuedInComment, continuesLine, followablePredecessor, followableSuccessor, hijackReason, successorNamed } from "../../../src/chain/index.ts";
import { freshnessOf } from "../../../src/projection/index.ts";

const T = "[Automated] Session";
const issue = (number: number, login: string, body: string, title = T) => ({ number, title, body, state: "open", author: login });

describe("chain rules", () => {
  it("adopts only the bot's own issue that links back with the same title; anyone else's is named as an anomaly", () => {
    const o = { previous: 1, title: T, botLogin: "checkpost-bot" };
    expect(adoptableSuccessor(issue(2, "checkpost-bot", continuesLine(1, 8)), o)).toBe(true);
    expect(adoptableSuccessor(issue(2, "Checkpost-Bot", continuesLine(1, 8)), o)).toBe(true);
    expect(adoptableSuccessor(issue(3, "mallory", continuesLine(1, 8)), o)).toBe(false);
    expect(hijackReason(issue(3, "mallory", continuesLine(1, 8)), o)).toMatch(/#3 says it continues #1 but was opened by mallory/);
    expect(adoptableSuccessor(issue(2, "checkpost-bot", continuesLine(7, 8)), o)).toBe(false);
    expect(adoptableSuccessor(issue(2, "checkpost-bot", continuesLine(1, 8), "other"), o)).toBe(false);
    expect(hijackReason(issue(2, "checkpost-bot", continuesLine(1, 8)), o)).toBeNull();
  });

  it("a cold reader follows a link only from a trusted author to an issue that author opened", () => {
    const trusted = new Set(["checkpost-bot", "agent"]);
    const comments = [
      { id: 5, body: continuedInComment(2, 8), author: "checkpost-bot" },
      { id: 9, body: continuedInComment(3, 8), author: "mallory" }, // newer, but untrusted
    ];
    expect(successorNamed(comments, trusted)).toEqual({ successor: 2, author: "checkpost-bot" });
    expect(successorNamed(comments.slice(1), trusted)).toBeNull();
    expect(followableSuccessor(issue(2, "checkpost-bot", continuesLine(1, 8)), { previous: 1, title: T, trusted, linkAuthor: "checkpost-bot" })).toBe(true);
    // Opened by another trusted login than the one whose comment links to it.
    expect(followableSuccessor(issue(2, "agent", continuesLine(1, 8)), { previous: 1, title: T, trusted, linkAuthor: "checkpost-bot" })).toBe(false);
    expect(followableSuccessor(issue(2, "mallory", continuesLine(1, 8)), { previous: 1, title: T, trusted })).toBe(false);
    expect(followablePredecessor(issue(2, "checkpost-bot", continuesLine(1, 8)), { title: T, trusted })).toBe(1);
    expect(followablePredecessor(issue(3, "mallory", continuesLine(1, 8)), { title: T, trusted })).toBeNull();
  });
});

describe("freshness", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  it("says when an answer may be stale, and why", () => {
    expect(freshnessOf({ asOf: null, watermark: 0, watermarkUpdatedAt: null, budgetMs: 30_000, now })).toMatchObject({ may_be_stale: true, as_of: null });
    expect(freshnessOf({ asOf: new Date(now.getTime() - 10_000), watermark: 7, watermarkUpdatedAt: "x", budgetMs: 30_000, now })).toEqual({
      as_of: "2026-12-01T11:59:50.000Z",
      watermark: 7,
      watermark_updated_at: "x",
      budget_ms: 30_000,
      may_be_stale: false,
    });
    expect(freshnessOf({ asOf: new Date(now.getTime() - 40_000), watermark: 7, watermarkUpdatedAt: "x", budgetMs: 30_000, now })).toMatchObject({
      may_be_stale: true,
      reason: expect.stringMatching(/40 s/),
    });
    expect(freshnessOf({ asOf: new Date(0), watermark: 7, watermarkUpdatedAt: "x", budgetMs: null, now }).may_be_stale).toBe(false);
  });
});
