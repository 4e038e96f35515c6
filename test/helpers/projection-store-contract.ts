// The ProjectionStore contract: one suite, run against every implementation
// (SQLite in test/unit/bot-state, PostgreSQL in its own test file).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEntry, CommentEvent } from "../../src/projection/index.ts";
import type { ProjectionStore, ProjectionStoreOptions } from "../../src/bot-state/index.ts";
import { StaleLeaseError } from "../../src/bot-state/index.ts";

/** A fresh, empty backing database; `open` may be called several times (several processes on one database). */
export interface StoreBackend {
  open(options: ProjectionStoreOptions): Promise<ProjectionStore>;
  destroy(): Promise<void>;
}

const ISSUE = "agent/work#1";
const OTHER = "agent/work#2";
const t0 = Date.parse("2026-11-29T10:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000).toISOString().replace(".000Z", "Z");

const checkpoint = (agent: string, phase: string) => `[CHECKPOINT] ${agent}\nVersion: 1.0\nPhase: ${phase}\nSession: s1\nTime: 2026-11-29T10:00:00Z\n\nState Data:\n\`\`\`json\n{}\n\`\`\``;
const upsert = (id: number, body: string, created: number, updated = created, author = "agent"): CommentEvent => ({
  type: "upsert",
  comment: { id, author, body, createdAt: at(created), updatedAt: at(updated), htmlUrl: `http://forge/agent/work/issues/1#issuecomment-${id}` },
});
const del = (commentId: number): CommentEvent => ({ type: "delete", commentId });
const entry = (agent: string, session: string, phase = "start"): AgentEntry => ({
  agent,
  session,
  latest: { commentId: 1, phase, timestamp: null, createdAt: at(0), data: { phase } },
  maxEpoch: 0,
  counts: { checkpoints: 1, health: 0, invalid: 0, untrusted: 0 },
  health: null,
  lastSignalAt: at(0),
  intervalsMs: [],
});

export function projectionStoreContract(name: string, setup: () => Promise<StoreBackend>): void {
  describe(`ProjectionStore contract: ${name}`, () => {
    let backend: StoreBackend;
    let store: ProjectionStore;
    let clock = t0;
    const opened: ProjectionStore[] = [];
    const open = async () => {
      const s = await backend.open({ now: () => clock });
      opened.push(s);
      return s;
    };

    beforeEach(async () => {
      clock = t0;
      backend = await setup();
      store = await open();
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await backend.destroy();
    });

    it("stores new comments, keeps bodies of protocol comments only, and counts live ones", async () => {
      const r = await store.applyDelivery(ISSUE, "d1", [upsert(1, checkpoint("a", "start"), 0), upsert(2, "just a person talking", 1)]);
      expect(r).toEqual({ duplicate: false, changed: [upsert(1, checkpoint("a", "start"), 0), upsert(2, "just a person talking", 1)] });
      const rows = await store.comments(ISSUE);
      expect(rows.map((c) => [c.id, c.body !== null, c.deleted, c.multi])).toEqual([
        [1, true, false, false],
        [2, false, false, false],
      ]);
      expect(rows[0]?.htmlUrl).toBe("http://forge/agent/work/issues/1#issuecomment-1");
      expect(rows[0]?.body).toBe(checkpoint("a", "start"));
      expect(await store.commentCount(ISSUE)).toBe(2);
      expect(await store.commentCount(OTHER)).toBe(0);
      expect(await store.issues()).toEqual([ISSUE]);
    });

    it("keeps [CONTROL] bodies (a restart keeps people's pause and rewind) and reads comments by page or by id", async () => {
      const control = "[CONTROL] a\nVersion: 1.0\nSession: s1\nTime: 2026-11-29T10:00:00Z\nAction: pause";
      await store.applyDelivery(ISSUE, null, [upsert(1, checkpoint("a", "start"), 0), upsert(2, control, 1), upsert(3, "a note", 2), upsert(4, checkpoint("a", "next"), 3), del(3)]);
      await store.applyDelivery(OTHER, null, [upsert(5, checkpoint("b", "other"), 4)]);
      expect((await store.comments(ISSUE)).find((c) => c.id === 2)?.body).toBe(control);
      expect((await store.comments(ISSUE, { afterId: 0, limit: 2 })).map((c) => c.id)).toEqual([1, 2]);
      expect((await store.comments(ISSUE, { afterId: 2, limit: 2 })).map((c) => c.id)).toEqual([3, 4]);
      expect(await store.comments(ISSUE, { afterId: 4, limit: 2 })).toEqual([]);
      const byId = await store.comments(ISSUE, { ids: [4, 3, 5, 99] });
      expect(byId.map((c) => [c.id, c.deleted])).toEqual([
        [3, true],
        [4, false],
      ]);
      expect(await store.comments(ISSUE, { ids: [] })).toEqual([]);
      // Without bodies: the rows as they are, body null, and which ones have a body left out.
      const bare = await store.comments(ISSUE, { bodies: false });
      expect(bare.map((c) => [c.id, c.body, c.bodyOmitted === true])).toEqual([
        [1, null, true],
        [2, null, true],
        [3, null, false],
        [4, null, true],
      ]);
      expect(bare[0]).toMatchObject({ hash: (await store.comments(ISSUE))[0]?.hash, deleted: false });
    });

    it("applies a delivery id once: a redelivery changes nothing, even with other events", async () => {
      await store.applyDelivery(ISSUE, "d1", [upsert(1, checkpoint("a", "start"), 0)]);
      const again = await store.applyDelivery(ISSUE, "d1", [upsert(2, checkpoint("a", "next"), 1)]);
      expect(again).toEqual({ duplicate: true, changed: [] });
      expect((await store.comments(ISSUE)).map((c) => c.id)).toEqual([1]);
    });

    it("dedupes by comment id and version across deliveries and polls", async () => {
      await store.applyDelivery(ISSUE, "d1", [upsert(1, checkpoint("a", "start"), 0)]);
      expect((await store.applyDelivery(ISSUE, "d2", [upsert(1, checkpoint("a", "start"), 0)])).changed).toEqual([]);
      expect((await store.applyDelivery(ISSUE, null, [upsert(1, checkpoint("a", "start"), 0)])).changed).toEqual([]);
      // A newer version (edit) replaces the body and is marked multi for good.
      const edited = upsert(1, checkpoint("a", "forged"), 0, 5);
      expect((await store.applyDelivery(ISSUE, null, [edited])).changed).toEqual([edited]);
      // The older version arriving late changes nothing more.
      expect((await store.applyDelivery(ISSUE, null, [upsert(1, checkpoint("a", "start"), 0)])).changed).toEqual([]);
      const [row] = await store.comments(ISSUE);
      expect(row).toMatchObject({ id: 1, multi: true, body: checkpoint("a", "forged"), updatedAt: at(5) });
    });

    it("marks multi when an older version with another body arrives after a newer one", async () => {
      const newer = upsert(1, checkpoint("a", "second"), 0, 5);
      await store.applyDelivery(ISSUE, null, [newer]);
      const older = upsert(1, checkpoint("a", "first"), 0, 0);
      expect((await store.applyDelivery(ISSUE, null, [older])).changed).toEqual([older]);
      expect((await store.comments(ISSUE))[0]).toMatchObject({ multi: true, body: checkpoint("a", "second") });
    });

    it("deletes for good: a late upsert does not bring a comment back", async () => {
      await store.applyDelivery(ISSUE, "d1", [upsert(1, checkpoint("a", "start"), 0), upsert(2, checkpoint("a", "next"), 1)]);
      expect((await store.applyDelivery(ISSUE, "d2", [del(2)])).changed).toEqual([del(2)]);
      expect((await store.applyDelivery(ISSUE, "d3", [del(2)])).changed).toEqual([]);
      expect((await store.applyDelivery(ISSUE, null, [upsert(2, checkpoint("a", "next"), 1)])).changed).toEqual([]);
      expect(await store.commentCount(ISSUE)).toBe(1);
      expect((await store.comments(ISSUE)).find((c) => c.id === 2)).toMatchObject({ deleted: true, body: checkpoint("a", "next") });
      // Deleted before any version was seen: the late version is kept only as what was deleted.
      await store.applyDelivery(ISSUE, null, [del(9)]);
      await store.applyDelivery(ISSUE, null, [upsert(9, checkpoint("a", "ghost"), 3)]);
      expect((await store.comments(ISSUE)).find((c) => c.id === 9)).toMatchObject({ deleted: true, body: checkpoint("a", "ghost") });
      expect(await store.commentCount(ISSUE)).toBe(1);
    });

    it("keeps a watermark of the newest updated second and the ids seen in it, never moving back", async () => {
      expect(await store.watermark(ISSUE)).toBeNull();
      await store.applyDelivery(ISSUE, null, [upsert(3, "x", 10), upsert(1, "y", 4)]);
      expect(await store.watermark(ISSUE)).toEqual({ updatedAtSecond: (t0 + 10_000) / 1000, idsInSecond: [3] });
      await store.applyDelivery(ISSUE, null, [upsert(7, "z", 10), upsert(5, "w", 10)]);
      expect(await store.watermark(ISSUE)).toEqual({ updatedAtSecond: (t0 + 10_000) / 1000, idsInSecond: [3, 5, 7] });
      await store.applyDelivery(ISSUE, null, [upsert(2, "old", 2)]);
      expect((await store.watermark(ISSUE))?.updatedAtSecond).toBe((t0 + 10_000) / 1000);
      await store.applyDelivery(ISSUE, null, [upsert(8, "new", 11)]);
      expect(await store.watermark(ISSUE)).toEqual({ updatedAtSecond: (t0 + 11_000) / 1000, idsInSecond: [8] });
      expect(await store.watermark(OTHER)).toBeNull();
    });

    it("holds one entry per agent+session, sorted by code points, replaced and removed by key", async () => {
      await store.putEntries(ISSUE, [entry("b", "s1"), entry("a", "s2"), entry("a", "s1"), entry("Z", "s1"), entry("é", "s1")]);
      await store.putEntries(ISSUE, [entry("a", "s1", "later")], [{ agent: "b", session: "s1" }]);
      const all = await store.entries(ISSUE);
      expect(all.map((e) => `${e.agent}/${e.session}`)).toEqual(["Z/s1", "a/s1", "a/s2", "é/s1"]);
      expect(await store.entry(ISSUE, "a", "s1")).toEqual(entry("a", "s1", "later"));
      expect(await store.entry(ISSUE, "b", "s1")).toBeNull();
      expect(await store.entries(OTHER)).toEqual([]);
    });

    it("grants a lease to one holder at a time, with a higher token on every acquisition", async () => {
      const a = await store.acquireLease(ISSUE, "a", 10_000);
      expect(a).toMatchObject({ name: ISSUE, holder: "a", expiresAtMs: t0 + 10_000 });
      expect(await store.acquireLease(ISSUE, "b", 10_000)).toBeNull();
      clock += 5_000;
      const renewed = await store.renewLease(a!, 10_000);
      expect(renewed).toEqual({ ...a, expiresAtMs: t0 + 15_000 });
      clock += 15_001;
      const b = await store.acquireLease(ISSUE, "b", 10_000);
      expect(b?.token).toBeGreaterThan(a!.token);
      expect(await store.renewLease(renewed!, 10_000)).toBeNull();
      await store.releaseLease(renewed!); // not held: changes nothing
      expect(await store.acquireLease(ISSUE, "c", 10_000)).toBeNull();
      await store.releaseLease(b!);
      const c = await store.acquireLease(ISSUE, "c", 10_000);
      expect(c?.token).toBeGreaterThan(b!.token);
      // Leases of different names are independent.
      expect(await store.acquireLease(OTHER, "a", 10_000)).not.toBeNull();
    });

    it("refuses a leader write with a stale fencing token and writes nothing", async () => {
      const a = (await store.acquireLease(ISSUE, "a", 10_000))!;
      const index = { v: 1 as const, watermark: 1, entries: [] };
      await store.putResumeIndex(a, ISSUE, index);
      expect(await store.recordAlert(a, ISSUE, "k1")).toBe(true);
      expect(await store.recordAlert(a, ISSUE, "k1")).toBe(false);
      expect(await store.updateIssueMeta(a, ISSUE, { successor: 2 })).toEqual({ successor: 2 });
      await expect(store.checkFence(a)).resolves.toBeUndefined();

      clock += 10_001; // a's lease ran out: even before anyone takes over, a's writes are refused
      await expect(store.checkFence(a)).rejects.toBeInstanceOf(StaleLeaseError);
      const b = (await store.acquireLease(ISSUE, "b", 10_000))!;
      await expect(store.putResumeIndex(a, ISSUE, { ...index, watermark: 9 })).rejects.toBeInstanceOf(StaleLeaseError);
      await expect(store.recordAlert(a, ISSUE, "k2")).rejects.toBeInstanceOf(StaleLeaseError);
      await expect(store.updateIssueMeta(a, ISSUE, { successor: 3 })).rejects.toBeInstanceOf(StaleLeaseError);
      expect(await store.resumeIndex(ISSUE)).toEqual(index);
      expect(await store.hasAlert(ISSUE, "k2")).toBe(false);
      expect(await store.issueMeta(ISSUE)).toEqual({ successor: 2 });
      // The new holder's writes go through; meta merges by key.
      expect(await store.updateIssueMeta(b, ISSUE, { predecessor: 1 })).toEqual({ successor: 2, predecessor: 1 });
      expect(await store.hasAlert(ISSUE, "k1")).toBe(true);
    });

    it("keeps the control boxes of the last body seen for the next process (issue 28.4)", async () => {
      const a = (await store.acquireLease(ISSUE, "a", 10_000))!;
      const boxes = "<!-- checkpost:dashboard:start -->\n- [x] <!-- checkpost:control pause WyJ3IiwicyJd --> \n<!-- checkpost:dashboard:end -->";
      await store.updateIssueMeta(a, ISSUE, { successor: 2 });
      expect(await store.updateIssueMeta(a, ISSUE, { boxesSeen: boxes })).toEqual({ successor: 2, boxesSeen: boxes });
      const next = await open();
      expect((await next.issueMeta(ISSUE)).boxesSeen).toBe(boxes);
    });

    it("claims a command key once, ever: across instances, concurrent claims and a cleared issue", async () => {
      const other = await open();
      expect(await store.claimCommand(ISSUE, "comment:7", "run")).toBe(true);
      expect(await store.claimCommand(ISSUE, "comment:7", "run")).toBe(false);
      expect(await other.claimCommand(ISSUE, "comment:7", "baseline")).toBe(false);
      // Per issue: the same key on another issue is another command.
      expect(await other.claimCommand(OTHER, "comment:7", "run")).toBe(true);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).claimCommand(ISSUE, "tick:r1:pause:x:", "run")));
      expect(results.filter(Boolean)).toHaveLength(1);
      // A rebuild (clearIssue) must not run old commands again.
      await store.clearIssue(ISSUE);
      expect(await store.claimCommand(ISSUE, "comment:7", "run")).toBe(false);
    });

    it("shows the lease as stored to a follower (peekLease), whoever holds it", async () => {
      expect(await store.peekLease(ISSUE)).toBeNull();
      const a = (await store.acquireLease(ISSUE, "a", 10_000))!;
      const other = await open();
      expect(await other.peekLease(ISSUE)).toMatchObject({ name: ISSUE, holder: "a", token: a.token, expiresAtMs: t0 + 10_000 });
    });

    it("shares leases and delivery ids between two instances on one database", async () => {
      const other = await open();
      const a = await store.acquireLease(ISSUE, "process-1", 10_000);
      expect(a).not.toBeNull();
      expect(await other.acquireLease(ISSUE, "process-2", 10_000)).toBeNull();
      await expect(other.checkFence(a!)).resolves.toBeUndefined();
      expect((await store.applyDelivery(ISSUE, "d1", [upsert(1, "x", 0)])).duplicate).toBe(false);
      expect((await other.applyDelivery(ISSUE, "d1", [upsert(1, "x", 0)])).duplicate).toBe(true);
      expect((await other.comments(ISSUE)).map((c) => c.id)).toEqual([1]);
    });

    it("applies one of many concurrent copies of a delivery", async () => {
      const other = await open();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).applyDelivery(ISSUE, "same", [upsert(1, checkpoint("a", "start"), 0)])));
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(results.filter((r) => r.changed.length)).toHaveLength(1);
    });

    it("prunes old delivery ids and clears one issue without touching another or the leases", async () => {
      await store.applyDelivery(ISSUE, "old", [upsert(1, "x", 0)]);
      clock += 60_000;
      await store.applyDelivery(OTHER, "new", [upsert(2, "y", 0)]);
      expect(await store.pruneDeliveries(t0 + 30_000)).toBe(1);
      expect((await store.applyDelivery(ISSUE, "old", [])).duplicate).toBe(false);
      expect((await store.applyDelivery(OTHER, "new", [])).duplicate).toBe(true);
      const lease = (await store.acquireLease(ISSUE, "a", 10_000))!;
      await store.putEntries(ISSUE, [entry("a", "s1")]);
      await store.clearIssue(ISSUE);
      expect(await store.comments(ISSUE)).toEqual([]);
      expect(await store.entries(ISSUE)).toEqual([]);
      expect(await store.watermark(ISSUE)).toBeNull();
      expect(await store.comments(OTHER)).toHaveLength(1);
      await expect(store.checkFence(lease)).resolves.toBeUndefined();
    });
  });
}
