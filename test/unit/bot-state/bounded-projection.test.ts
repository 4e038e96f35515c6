import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createProjection } from "../../../src/projection/index.ts";
import type { CommentEvent, Projection } from "../../../src/projection/index.ts";
import { createSqliteProjectionStore, parseSealedState } from "../../../src/bot-state/index.ts";
import type { ProjectionStore } from "../../../src/bot-state/index.ts";
import { formatCheckpoint, formatControl, formatHealth } from "../../../src/protocol/index.ts";

const ISSUE = "o/r#1";
const policy = { trustedAuthors: new Set(["agent"]) };
const t0 = Date.parse("2026-11-29T10:00:00Z");
const ts = "2026-11-29T10:00:00";
const cp = (session: string, phase: string, o: { id?: string; seq?: number; epoch?: number } = {}) => formatCheckpoint({ agent: "a", session, phase, timestamp: ts, data: { phase } as never, ...o });
const ctl = (action: "pause" | "unpause" | "rewind" | "release", o: { target?: number; epoch?: number } = {}) => formatControl({ agent: "a", session: "s1", timestamp: ts, action, by: "alice", ...o });
const bodies = [
  cp("s1", "clone_complete"),
  cp("s1", "commit_complete", { id: "cp-aaaaaaaa", seq: 1, epoch: 1 }),
  cp("s1", "pr_created", { id: "cp-bbbbbbbb", seq: 2, epoch: 1 }),
  cp("s1", "subtask_1_complete", { id: "cp-aaaaaaaa", seq: 4, epoch: 0 }),
  cp("s1", "subtask_2_complete", { seq: 3, epoch: 3 }),
  cp("s2", "clone_complete"),
  formatHealth({ agent: "a", session: "s1", timestamp: ts, metrics: { ok: true } as never }),
  ctl("pause"),
  ctl("unpause"),
  ctl("rewind", { target: 2, epoch: 2 }),
  ctl("rewind", { target: 5, epoch: 4 }),
  ctl("release", { epoch: 5 }),
  "a person's note",
  "[CHECKPOINT] a\nSession: s1\nnot readable",
];
/** Mostly appends (the next id), sometimes an edit, a late copy or a delete of any id so far. */
const opArb = fc.record({
  op: fc.constantFrom("append", "append", "append", "append", "again", "delete"),
  pick: fc.nat(),
  body: fc.integer({ min: 0, max: bodies.length - 1 }),
  edit: fc.integer({ min: 0, max: 2 }),
  author: fc.constantFrom("agent", "agent", "agent", "mallory"),
});
const eventsArb = fc.array(opArb, { minLength: 10, maxLength: 50 }).map((ops) => {
  const events: CommentEvent[] = [];
  let next = 1;
  for (const o of ops) {
    const id = o.op === "append" || next === 1 ? next++ : 1 + (o.pick % (next - 1));
    if (o.op === "delete") {
      events.push({ type: "delete", commentId: id });
      continue;
    }
    const created = new Date(t0 + id * 10_000).toISOString();
    const updated = new Date(t0 + id * 10_000 + (o.op === "append" ? 0 : o.edit * 1000)).toISOString();
    events.push({ type: "upsert", comment: { id, author: o.author, body: bodies[o.body] as string, createdAt: created, updatedAt: updated } });
  }
  return events;
});

/** What the bot's tracker does after folding: give every entry that asks its history back from the store. */
async function hydrateFrom(p: Projection, store: ProjectionStore): Promise<number> {
  let asked = 0;
  for (let round = 0; round < 3; round++) {
    const needed = p.historyNeeded();
    if (!needed.length) break;
    for (const n of needed) {
      asked++;
      p.hydrate(n.key, await store.comments(ISSUE, { ids: n.ids }));
    }
  }
  return asked;
}

describe("a bounded projection (hotRecords) backed by the store", () => {
  it("equals the projection that keeps every record, whatever the events (edits, deletes, late comments, rewinds)", async () => {
    let asked = 0;
    await fc.assert(
      // Both legacy-writer policies: the folds decide which legacy checkpoints below a fence are believed, and keep the not-used ones.
      fc.asyncProperty(eventsArb, fc.constantFrom(1, 2), fc.nat({ max: 60 }), fc.constantFrom("fence" as const, "accept" as const), async (events, hotRecords, cut, legacyWriters) => {
        const policy = { trustedAuthors: new Set(["agent"]), legacyWriters };
        const full = createProjection(policy);
        const bounded = createProjection(policy, { hotRecords });
        const store = createSqliteProjectionStore(":memory:");
        // The folded state as a restart finds it in the store: written at some point, then more events came.
        let state: string | null = null;
        for (const [i, e] of events.entries()) {
          if (i === cut) state = JSON.stringify(bounded.sealedState());
          full.apply(e);
          await store.applyDelivery(ISSUE, `d${i}`, [e]);
          bounded.apply(e);
          asked += await hydrateFrom(bounded, store);
          expect(bounded.historyNeeded()).toEqual([]);
        }
        state ??= JSON.stringify(bounded.sealedState());
        const restored = createProjection(policy, { hotRecords });
        for (const c of await store.comments(ISSUE)) restored.restore(c);
        asked += await hydrateFrom(restored, store);
        // A restart that starts from the stored folds and parses only the rest.
        const fromState = createProjection(policy, { hotRecords });
        const parsed = parseSealedState(state);
        expect(parsed).not.toBeNull();
        expect(fromState.restoreSealed(parsed as NonNullable<typeof parsed>)).toBe(true);
        // As the tracker does: read without bodies, claim the folded ones, read the rest whole.
        const rest = (await store.comments(ISSUE, { bodies: false })).filter((c) => !fromState.claimFolded(c)).map((c) => c.id);
        for (const c of await store.comments(ISSUE, { ids: rest })) fromState.restore(c);
        fromState.restoreDone();
        asked += await hydrateFrom(fromState, store);
        await store.close();
        expect(bounded.snapshot()).toEqual(full.snapshot());
        expect(restored.snapshot()).toEqual(full.snapshot());
        expect(fromState.snapshot()).toEqual(full.snapshot());
      }),
      { numRuns: 400 },
    );
    // The fallback itself was exercised, not only the in-order path.
    expect(asked).toBeGreaterThan(300);
  });

  it("holds only the newest records: appends never ask for history; deleting a folded-away newest checkpoint does, once", async () => {
    const store = createSqliteProjectionStore(":memory:");
    const p = createProjection(policy, { hotRecords: 2 });
    const events: CommentEvent[] = [];
    for (let id = 1; id <= 50; id++) {
      const at = new Date(t0 + id * 1000).toISOString();
      events.push({
        type: "upsert",
        comment: { id, author: "agent", body: id % 2 ? cp("s1", `phase_${id}`) : formatHealth({ agent: "a", session: "s1", timestamp: ts, metrics: { id } as never }), createdAt: at, updatedAt: at },
      });
    }
    await store.applyDelivery(ISSUE, null, events);
    p.applyAll(events);
    expect(p.historyNeeded()).toEqual([]);
    expect(p.latest("a", "s1")?.commentId).toBe(49);
    expect(p.snapshot().entries[0]?.counts).toEqual({ checkpoints: 25, health: 25, invalid: 0, untrusted: 0 });
    // Delete 49 and 47 (the newest two checkpoints: 47 is folded away by now), then 45.
    for (const id of [49, 47, 45]) {
      await store.applyDelivery(ISSUE, null, [{ type: "delete", commentId: id }]);
      p.apply({ type: "delete", commentId: id });
    }
    const needed = p.historyNeeded();
    expect(needed.map((n) => [n.agent, n.session])).toEqual([["a", "s1"]]);
    expect(needed[0]?.ids).toContain(45);
    expect(needed[0]?.ids).not.toContain(50);
    expect(await hydrateFrom(p, store)).toBe(1);
    expect(p.latest("a", "s1")?.commentId).toBe(43);
    expect(p.latest("a", "s1")?.data).toEqual({ phase: "phase_43" });
    expect(
      p
        .anomalies()
        .filter((a) => a.kind === "deleted-checkpoint")
        .map((a) => a.commentId),
    ).toEqual([45, 47, 49]);
    await store.close();
  });

  it("a stored state made under another trust policy is not used", () => {
    const a = createProjection(policy, { hotRecords: 2 });
    const b = createProjection({ trustedAuthors: new Set(["agent", "mallory"]) }, { hotRecords: 2 });
    expect(b.restoreSealed(a.sealedState())).toBe(false);
    // Another legacy-writer policy believes other checkpoints: its folds are not reused either.
    const c = createProjection({ ...policy, legacyWriters: "accept" }, { hotRecords: 2 });
    expect(c.restoreSealed(a.sealedState())).toBe(false);
    expect(createProjection({ ...policy, legacyWriters: "fence" }, { hotRecords: 2 }).restoreSealed(a.sealedState())).toBe(true);
    expect(parseSealedState("{not json")).toBeNull();
    expect(parseSealedState(JSON.stringify({ v: 2, policy: "x", entries: [] }))).toBeNull();
  });

  it("refuses a hotRecords that is not a positive integer", () => {
    expect(() => createProjection(policy, { hotRecords: 0 })).toThrow(/hotRecords must be a positive integer/);
  });
});
