import { describe, expect, it } from "vitest";
import { ProtocolInputError } from "../../../src/errors.ts";
import { IdSlots, type SlotColumns, SlotsMovedError } from "../../../src/projection/id-slots.ts";

/** Columns that hold each slot's id, so that every move and clear IdSlots makes can be checked. */
class Shadow implements SlotColumns {
  values: (number | null)[] = [];
  capacity = 0;
  resize(capacity: number): void {
    this.capacity = capacity;
  }
  move(from: number, to: number): void {
    this.values[to] = this.values[from] ?? null;
  }
  clear(from: number, to: number): void {
    for (let s = from; s < to; s++) this.values[s] = null;
  }
}

const check = (slots: IdSlots, shadow: Shadow, want: number[]) => {
  expect(slots.size).toBe(want.length);
  expect([...slots.keys()]).toEqual(want);
  const wrong = want.filter((id) => {
    const s = slots.find(id);
    return s < 0 || slots.idAt(s) !== id || shadow.values[s] !== id;
  });
  expect(wrong).toEqual([]);
};

describe("IdSlots: comment ids to slots in typed arrays", () => {
  it("adds, finds and deletes, keeping the order ids were first added (as a Map's keys)", () => {
    const shadow = new Shadow();
    const slots = new IdSlots(shadow, 4);
    const order = new Map<number, true>();
    const add = (id: number) => {
      shadow.values[slots.add(id)] = id;
      order.set(id, true);
    };
    const del = (id: number) => {
      const s = slots.delete(id);
      if (s >= 0) shadow.values[s] = null;
      order.delete(id);
    };
    for (const id of [30, 10, 20]) add(id);
    add(10); // again: keeps its place
    check(slots, shadow, [...order.keys()]);
    del(10);
    expect(slots.find(10)).toBe(-1);
    expect(slots.delete(10)).toBe(-1);
    add(10); // after a delete: last, as in a Map
    check(slots, shadow, [...order.keys()]);
    expect([...order.keys()]).toEqual([30, 20, 10]);
  });

  it("matches a Map through 200,000 random adds and deletes, past table growth and slot reclaiming", () => {
    const shadow = new Shadow();
    const slots = new IdSlots(shadow, 8);
    const order = new Map<number, true>();
    let handedOut = 0;
    let seed = 12345;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let i = 0; i < 200_000; i++) {
      // Ids clustered (sequential, as a forge hands them out) and some beyond 2^31 and 2^32.
      const id = rand(3) === 0 ? 2 ** 32 + rand(5000) : rand(4) === 0 ? 2 ** 31 - 2500 + rand(5000) : 1 + rand(20_000);
      if (rand(3) === 0) {
        const s = slots.delete(id);
        if (s >= 0 !== order.has(id)) throw new Error(`delete ${id}: slot ${s}, in the Map: ${order.has(id)}`);
        if (s >= 0) shadow.values[s] = null;
        order.delete(id);
      } else {
        if (!order.has(id)) handedOut++;
        shadow.values[slots.add(id)] = id;
        order.set(id, true);
      }
    }
    // Freed slots were reclaimed on the way (else every new id would still hold its own slot).
    expect(slots.end).toBeLessThan(handedOut);
    check(slots, shadow, [...order.keys()]);
    const differ = Array.from({ length: 20_000 }, (_, i) => i + 1).filter((id) => slots.find(id) >= 0 !== order.has(id));
    expect(differ).toEqual([]);
    // Every freed slot beyond the end was cleared.
    expect(shadow.values.slice(slots.end).every((v) => v === null || v === undefined)).toBe(true);
  });

  it("grows from a small start to 100,000 sequential ids, and empties back", () => {
    const shadow = new Shadow();
    const slots = new IdSlots(shadow, 2);
    const base = 2 ** 40;
    for (let i = 0; i < 100_000; i++) shadow.values[slots.add(base + i)] = base + i;
    expect(shadow.capacity).toBeGreaterThanOrEqual(100_000);
    check(
      slots,
      shadow,
      Array.from({ length: 100_000 }, (_, i) => base + i),
    );
    expect(slots.find(base - 1)).toBe(-1);
    expect(slots.find(1)).toBe(-1);
    for (let i = 0; i < 100_000; i += 2) slots.delete(base + i);
    check(
      slots,
      shadow,
      Array.from({ length: 50_000 }, (_, i) => base + 2 * i + 1),
    );
    for (let i = 1; i < 100_000; i += 2) slots.delete(base + i);
    expect(slots.size).toBe(0);
    expect(slots.end).toBe(0);
    expect([...slots.keys()]).toEqual([]);
  });

  it("refuses ids that are not positive safe integers", () => {
    const slots = new IdSlots(new Shadow());
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 53]) expect(() => slots.add(id)).toThrow(ProtocolInputError);
    expect(slots.size).toBe(0);
  });

  it("throws, rather than skip or repeat ids, when slots are reclaimed during an iteration", () => {
    const shadow = new Shadow();
    const slots = new IdSlots(shadow, 4);
    for (const id of [1, 2, 3, 4]) shadow.values[slots.add(id)] = id;
    slots.delete(1);
    slots.delete(2);
    const it = slots.keys();
    expect(it.next().value).toBe(3);
    shadow.values[slots.add(5)] = 5; // full, half freed: reclaims, moving 3 and 4 down
    expect(() => it.next()).toThrow(SlotsMovedError);
    check(slots, shadow, [3, 4, 5]);
  });
});
