import { describe, expect, it } from "vitest";
import { bodyHash } from "../../../src/projection/body-hash.ts";
import { LiveComments } from "../../../src/projection/live-comments.ts";
import type { Held, KeyState } from "../../../src/projection/projection-state.ts";

const key = (name: string): KeyState => ({ key: name, agent: "a", session: name, ids: [], derived: null, fold: null, sealedUpTo: 0, coldIds: [], tombIds: [], stale: false });
const bare = (updatedMs: number, hash: string, multi = false, cold: KeyState | null = null): Held => ({ version: { updatedMs, hash, multi }, record: null, note: null, cold });

describe("LiveComments: versions of comments with no record, in columns", () => {
  it("gives back what was set, for every id, past the columns' first growth", () => {
    const live = new LiveComments<KeyState, Held>();
    const k = key("s1");
    const want = new Map<number, Held>();
    for (let id = 1; id <= 1000; id++) {
      const h = bare(1_700_000_000_000 + id * 1000.5, bodyHash(`body ${id}`), id % 7 === 0, id % 3 === 0 ? k : null);
      want.set(id, h);
      live.set(id, h);
    }
    expect(live.size).toBe(1000);
    for (const [id, h] of want) {
      expect(live.get(id)).toEqual(h);
      expect(live.version(id)).toEqual(h.version);
      expect(live.coldOf(id)).toBe(h.cold);
      expect(live.record(id)).toBeNull();
    }
    expect(live.maxima()).toEqual({ maxId: 1000, maxUpdatedMs: 1_700_000_000_000 + 1000 * 1000.5 });
  });

  it("keeps the Held object of a comment with a record, and one whose hash is not a bodyHash", () => {
    const live = new LiveComments<KeyState, Held>();
    const odd = bare(5, "not-a-16-char-hash");
    live.set(1, odd);
    expect(live.get(1)).toBe(odd);
    live.setBare(2, 6, "", true, null);
    expect(live.version(2)).toEqual({ updatedMs: 6, hash: "", multi: true });
    // A change to a bare comment's Held counts once it is set again.
    live.setBare(3, 7, bodyHash("x"), false, key("s2"));
    const h = live.get(3) as Held;
    h.cold = null;
    expect(live.coldOf(3)?.key).toBe("s2");
    live.set(3, h);
    expect(live.coldOf(3)).toBeNull();
  });

  it("reuses a deleted comment's slot without leaking its version or entry", () => {
    const live = new LiveComments<KeyState, Held>();
    live.setBare(1, 10, bodyHash("one"), true, key("s1"));
    live.delete(1);
    expect(live.has(1)).toBe(false);
    expect(live.get(1)).toBeUndefined();
    live.setBare(2, 20, bodyHash("two"), false, null);
    expect(live.get(2)).toEqual(bare(20, bodyHash("two")));
    expect([...live.keys()]).toEqual([2]);
  });

  it("keeps a Map's key order and answers through held, bare, deleted and reclaimed slots", () => {
    const live = new LiveComments<KeyState, Held>();
    const model = new Map<number, Held>();
    const k = key("s1");
    const record = { kind: "none" } as unknown as NonNullable<Held["record"]>;
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const id = 1 + rand(3000);
      const op = rand(4);
      if (op === 0) {
        live.delete(id);
        model.delete(id);
      } else {
        // A record (kept as an object), a bare comment, or one with a hash of another form.
        const h: Held = { version: { updatedMs: i, hash: op === 3 ? `odd-${i}` : bodyHash(`b${i}`), multi: i % 5 === 0 }, record: op === 1 ? record : null, note: null, cold: i % 2 ? k : null };
        live.set(id, h);
        model.set(id, h);
      }
    }
    expect([...live.keys()]).toEqual([...model.keys()]);
    expect(live.size).toBe(model.size);
    const differ = [...model].filter(([id, h]) => JSON.stringify(live.get(id)) !== JSON.stringify(h) || live.coldOf(id) !== h.cold || live.record(id) !== h.record);
    expect(differ).toEqual([]);
    let maxUpdatedMs = Number.NEGATIVE_INFINITY;
    for (const h of model.values()) maxUpdatedMs = Math.max(maxUpdatedMs, h.version.updatedMs);
    expect(live.maxima()).toEqual({ maxId: Math.max(...model.keys()), maxUpdatedMs });
  });
});
