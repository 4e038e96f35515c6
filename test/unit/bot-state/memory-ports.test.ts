// Each port of the bot's state has an in-memory fake a test can hand to the one consumer that takes it,
// typed as the port, with no cast (the whole store's contract is in memory-projection-store.test.ts).
import { describe, expect, it } from "vitest";
import type { CommandClaims, CommentLog, EntryView, IssueBookkeeping, LeaseStore } from "../../../src/bot-state/index.ts";
import { StaleLeaseError, type rebuildIssue } from "../../../src/bot-state/index.ts";
import { MemoryCommandClaims, MemoryCommentLog, MemoryEntryView, MemoryIssueBookkeeping, MemoryLeaseStore } from "../../../src/bot-state/memory-projection-store.ts";

const ISSUE = "o/r#1";
const at = "2026-11-29T10:00:00Z";

describe("in-memory fakes of the projection store's ports", () => {
  it("fences the entry view's and the bookkeeping's leader writes with the lease store they are given", async () => {
    let now = 1_000;
    const leases: LeaseStore = new MemoryLeaseStore(() => now);
    const view: EntryView = new MemoryEntryView(leases);
    const books: IssueBookkeeping = new MemoryIssueBookkeeping(leases);
    const lease = await leases.acquireLease(ISSUE, "a", 100);
    if (!lease) throw new Error("no lease");
    expect(await books.recordAlert(lease, ISSUE, "stale:a/s1")).toBe(true);
    expect(await books.recordAlert(lease, ISSUE, "stale:a/s1")).toBe(false);
    await view.putResumeIndex(lease, ISSUE, { v: 1, watermark: 7, entries: [] });
    expect(await view.resumeIndex(ISSUE)).toEqual({ v: 1, watermark: 7, entries: [] });
    now += 100; // expired
    await expect(view.putResumeIndex(lease, ISSUE, { v: 1, watermark: 8, entries: [] })).rejects.toBeInstanceOf(StaleLeaseError);
    expect((await view.resumeIndex(ISSUE))?.watermark).toBe(7);
    await expect(books.updateIssueMeta(lease, ISSUE, { successor: 2 })).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await books.issueMeta(ISSUE)).toEqual({});
    expect(await leases.acquireLease(ISSUE, "b", 100)).toMatchObject({ holder: "b", token: lease.token + 1 });
  });

  it("claims a command once and keeps a comment log with its watermark", async () => {
    const claims: CommandClaims = new MemoryCommandClaims();
    expect(await claims.claimCommand(ISSUE, "comment:5", "run")).toBe(true);
    expect(await claims.claimCommand(ISSUE, "comment:5", "run")).toBe(false);
    const log: CommentLog = new MemoryCommentLog(() => 0);
    const ev = { type: "upsert" as const, comment: { id: 5, author: "a", body: "hello", createdAt: at, updatedAt: at } };
    expect(await log.applyDelivery(ISSUE, "d1", [ev])).toEqual({ duplicate: false, changed: [ev] });
    expect(await log.applyDelivery(ISSUE, "d1", [ev])).toEqual({ duplicate: true, changed: [] });
    expect(await log.watermark(ISSUE)).toEqual({ updatedAtSecond: Date.parse(at) / 1000, idsInSecond: [5] });
    expect(await log.pruneDeliveries(1)).toBe(1);
    expect(await log.applyDelivery(ISSUE, "d1", [ev])).toEqual({ duplicate: false, changed: [] });
    // A consumer that takes only the comment log gets only it (rebuildIssue's store is a CommentLog).
    const typed: Parameters<typeof rebuildIssue>[0]["store"] = log;
    expect(await typed.commentCount(ISSUE)).toBe(1);
  });
});
