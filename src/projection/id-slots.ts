import { CheckpostError, ProtocolInputError } from "../errors.ts";

/** What owns columns indexed by slot: moved along when freed slots are reclaimed. */
export interface SlotColumns {
  /** Make room for `capacity` slots, keeping the first ones. */
  resize(capacity: number): void;
  /** Copy slot `from`'s values to slot `to` (to < from). */
  move(from: number, to: number): void;
  /** Slots [from, to) hold nothing any more: drop what they reference. */
  clear(from: number, to: number): void;
}

const EMPTY = 0;
const MIN_BITS = 9;
const MAX_LOAD = 0.7;

/**
 * Comment ids (positive safe integers) to slots, in typed arrays: an open-addressed table of
 * slot + 1 in an Int32Array (linear probing from a Fibonacci hash of the id's two 32-bit halves,
 * grown 2× past a load of 0.7, backward-shift deletion: no tombstones) and the id of each slot in a
 * Float64Array. ≈ 12–20 bytes an id where a Map<number, …> took ≈ 50 (4.2 MiB at 76,000 ids).
 *
 * A new id gets the next slot and keeps it until deleted, so the slots in order are the ids in the
 * order they were first added, as a Map's keys (`keys`). A deleted id's slot is freed (its id set to
 * 0); freed slots are reclaimed when the slots are full and at least a quarter of them are freed, by
 * moving the live ones down in order (`SlotColumns.move`). Slots (and the owner's columns, ≈ 37 bytes
 * a slot in LiveComments) grow by a quarter, not 2×: 88,863 slots at 76,000 ids, not 131,072.
 */
export class IdSlots {
  private ids: Float64Array;
  private table = new Int32Array(1 << MIN_BITS);
  private shift = 32 - MIN_BITS;
  private count = 0;
  private used = 0;
  private freed = 0;
  private moves = 0;

  constructor(
    private readonly columns: SlotColumns,
    capacity = 256,
  ) {
    this.ids = new Float64Array(capacity);
    columns.resize(capacity);
  }

  get size(): number {
    return this.count;
  }
  /** Slots handed out so far, live and freed: every live slot is below it. */
  get end(): number {
    return this.used;
  }
  /** The id held in `slot`, 0 when the slot is free. */
  idAt(slot: number): number {
    return this.ids[slot] as number;
  }
  /** The slot of `id`, -1 when it has none. */
  find(id: number): number {
    const mask = this.table.length - 1;
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      const v = this.table[i] as number;
      if (v === EMPTY) return -1;
      if (this.ids[v - 1] === id) return v - 1;
    }
  }
  /** The slot of `id`, a new one (after every slot handed out before) when it had none. */
  add(id: number): number {
    const found = this.find(id);
    if (found >= 0) return found;
    if (!Number.isSafeInteger(id) || id <= 0) throw new ProtocolInputError(`comment id must be a positive integer, got ${String(id)}`);
    if (this.used === this.ids.length) {
      if (this.freed * 4 >= this.ids.length) this.compact();
      else this.resize(this.ids.length + Math.max(256, Math.ceil(this.ids.length / 4)));
    }
    if (this.count + 1 > this.table.length * MAX_LOAD) this.rehash(this.table.length * 2);
    const slot = this.used++;
    this.ids[slot] = id;
    this.insert(id, slot);
    this.count++;
    return slot;
  }
  /** Free `id`'s slot; gives the slot, -1 when it had none. */
  delete(id: number): number {
    const mask = this.table.length - 1;
    let i = this.home(id);
    for (; ; i = (i + 1) & mask) {
      const v = this.table[i] as number;
      if (v === EMPTY) return -1;
      if (this.ids[v - 1] === id) break;
    }
    const slot = (this.table[i] as number) - 1;
    // Backward shift: move later entries of the probe run into the hole when their home allows it.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const v = this.table[j] as number;
      if (v === EMPTY) break;
      const h = this.home(this.ids[v - 1] as number);
      // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
      if (i <= j ? h <= i || h > j : h <= i && h > j) {
        this.table[i] = v;
        i = j;
      }
    }
    this.table[i] = EMPTY;
    this.ids[slot] = 0;
    this.count--;
    this.freed++;
    if (this.count === 0) {
      this.columns.clear(0, this.used);
      this.used = 0;
      this.freed = 0;
    }
    return slot;
  }
  /** The ids in the order first added. Adding an id while iterating may reclaim slots: that throws. */
  *keys(): IterableIterator<number> {
    const moves = this.moves;
    for (let s = 0; s < this.used; s++) {
      const id = this.ids[s] as number;
      if (id === 0) continue;
      yield id;
      if (this.moves !== moves) throw new SlotsMovedError();
    }
  }

  private home(id: number): number {
    const lo = id >>> 0;
    const hi = (id / 4294967296) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }
  private insert(id: number, slot: number): void {
    const mask = this.table.length - 1;
    let i = this.home(id);
    while (this.table[i] !== EMPTY) i = (i + 1) & mask;
    this.table[i] = slot + 1;
  }
  private rehash(size: number): void {
    this.table = new Int32Array(size);
    this.shift = 32 - Math.log2(size);
    for (let s = 0; s < this.used; s++) {
      const id = this.ids[s] as number;
      if (id !== 0) this.insert(id, s);
    }
  }
  private resize(capacity: number): void {
    const ids = new Float64Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    this.columns.resize(capacity);
  }
  private compact(): void {
    let to = 0;
    for (let from = 0; from < this.used; from++) {
      const id = this.ids[from] as number;
      if (id === 0) continue;
      if (from !== to) {
        this.ids[to] = id;
        this.columns.move(from, to);
      }
      to++;
    }
    this.ids.fill(0, to, this.used);
    this.columns.clear(to, this.used);
    this.used = to;
    this.freed = 0;
    this.moves++;
    this.rehash(this.table.length);
  }
}

export class SlotsMovedError extends CheckpostError {
  override name = "SlotsMovedError";
  constructor() {
    super("comment ids were added while iterating them: copy the keys first ([...live.keys()])");
  }
}
