// Group commit of webhooks' new comments (src/bot-state/postgres/new-comment-batches.ts), with a fake
// statement: who is written with whom, and that no one is acknowledged before (or despite) its batch.
import { describe, expect, it } from "vitest";
import { NewCommentBatches } from "../../../src/bot-state/postgres/new-comment-batches.ts";
import type { NewComment } from "../../../src/bot-state/postgres/ops/insert-new-comments.ts";

const item = (deliveryId: string, id: number, issue = "acme/w#1"): NewComment => ({
  issue,
  deliveryId,
  receivedMs: 0,
  second: 1,
  row: { id, author: "a", createdAt: "", updatedAt: "", hash: "h", multi: false, body: null, deleted: false },
});

/** A fake statement that holds each batch until released, recording what it was given. */
function gate(outcome: (items: readonly NewComment[]) => Set<number> | Error = (items) => new Set(items.map((_, i) => i))) {
  const batches: string[][] = [];
  const release: (() => void)[] = [];
  const write = (items: readonly NewComment[]) => {
    batches.push(items.map((x) => x.deliveryId));
    return new Promise<Set<number>>((resolve, reject) =>
      release.push(() => {
        const r = outcome(items);
        if (r instanceof Error) reject(r);
        else resolve(r);
      }),
    );
  };
  return { batches, release, write };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

describe("NewCommentBatches (group commit of new comments)", () => {
  it("writes one alone at once, then everything that arrived meanwhile in one batch; each settles only after its batch", async () => {
    const g = gate();
    const b = new NewCommentBatches(g.write);
    const first = b.add(item("d1", 1));
    const rest = [b.add(item("d2", 2)), b.add(item("d3", 3)), b.add(item("d4", 4, "acme/w#2"))];
    expect(g.batches).toEqual([["d1"]]);
    expect(await settled(first)).toBe(false);
    g.release[0]?.();
    expect(await first).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(g.batches).toEqual([["d1"], ["d2", "d3", "d4"]]);
    expect(await settled(Promise.all(rest))).toBe(false);
    g.release[1]?.();
    expect(await Promise.all(rest)).toEqual([true, true, true]);
  });

  it("a failing batch fails every delivery waiting on it, and the next batch is still written", async () => {
    let n = 0;
    const g = gate(() => (n++ === 1 ? new Error("connection lost") : new Set([0])));
    const b = new NewCommentBatches(g.write);
    const first = b.add(item("d1", 1));
    const failing = [b.add(item("d2", 2)), b.add(item("d3", 3))];
    g.release[0]?.();
    await first;
    await new Promise((r) => setImmediate(r));
    g.release[1]?.();
    for (const p of failing) await expect(p).rejects.toThrow("connection lost");
    const after = b.add(item("d4", 4));
    g.release[2]?.();
    expect(await after).toBe(true);
    expect(g.batches).toEqual([["d1"], ["d2", "d3"], ["d4"]]);
  });

  it("never puts one delivery id or one comment twice in a batch: the repeat waits for the next; rows not inserted answer false", async () => {
    const g = gate((items) => new Set(items.flatMap((x, i) => (x.deliveryId === "d9" ? [] : [i]))));
    const b = new NewCommentBatches(g.write);
    const first = b.add(item("d0", 10));
    const later = [b.add(item("d1", 1)), b.add(item("d1", 1)), b.add(item("d2", 1)), b.add(item("d3", 1, "acme/w#2")), b.add(item("d9", 9))];
    g.release[0]?.();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(g.batches[1]).toEqual(["d1", "d3", "d9"]);
    g.release[1]?.();
    await new Promise((r) => setImmediate(r));
    expect(g.batches[2]).toEqual(["d1"]);
    g.release[2]?.();
    await new Promise((r) => setImmediate(r));
    expect(g.batches[3]).toEqual(["d2"]);
    g.release[3]?.();
    expect(await Promise.all(later)).toEqual([true, true, true, true, false]);
  });
});
