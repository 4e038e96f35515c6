import { IdSlots, type SlotColumns } from "./id-slots.ts";
import type { StoredRecord, Version } from "./stored-comment.ts";

/** What is held of one comment (projection-state.ts's Held; K is its entry, K). */
export interface HeldOf<K> {
  version: Version;
  record: StoredRecord | null;
  note: object | null;
  cold: K | null;
}

/** A bodyHash(): 12 bytes as 16 base64url characters, which decode and encode back to the same text. */
const HASH = /^[A-Za-z0-9_-]{16}$/;
const HASH_BYTES = 12;
const SCRATCH = Buffer.alloc(HASH_BYTES);
const MULTI = 1;
const HELD = 2;

/**
 * The projection's live comments by id. Most comments of a long issue hold no record: folded ones
 * (hotRecords) and comments that are not the protocol's. Those keep their version in columns, a slot
 * each (updated ms, the hash's 12 bytes, multi, the entry they were folded into): ≈ 30 bytes and a map
 * entry instead of a Held, a Version, a hash string and a heap number (≈ 190 bytes a comment, 9.7 MiB of
 * the bot's heap at 50,000 comments). A comment with a record or a note, or a hash of another form,
 * keeps its Held object, in the same slot (flag HELD; its columns unused).
 *
 * Ids find their slot through IdSlots (typed arrays, not a Map: 4.2 MiB of the bot's heap at 76,000
 * comments); slots keep the order ids were first set, which `keys` gives.
 *
 * `get` of a bare comment makes a Held from its columns: a change to it counts only once given back with
 * `set` (which stores it bare again when it holds no record and no note).
 */
export class LiveComments<K, Held extends HeldOf<K> = HeldOf<K>> implements SlotColumns {
  private updated = new Float64Array(0);
  private hashes = Buffer.alloc(0);
  private flags = new Uint8Array(0);
  /** Per slot: the entry it was folded into (a bare comment) or its Held (flag HELD). */
  private extra: (K | Held | null)[] = [];
  private readonly slots = new IdSlots(this);

  get size(): number {
    return this.slots.size;
  }
  has(id: number): boolean {
    return this.slots.find(id) >= 0;
  }
  /** The ids, in the order they were first set. */
  keys(): IterableIterator<number> {
    return this.slots.keys();
  }
  /** The record held for `id`, null when it holds none. */
  record(id: number): StoredRecord | null {
    return this.heldAt(this.slots.find(id))?.record ?? null;
  }
  /** The entry `id`'s record was folded into, else null. */
  coldOf(id: number): K | null {
    const slot = this.slots.find(id);
    if (slot < 0) return null;
    return this.isHeld(slot) ? (this.extra[slot] as Held).cold : ((this.extra[slot] as K | null) ?? null);
  }
  setCold(id: number, k: K | null): void {
    const slot = this.slots.find(id);
    if (slot < 0) return;
    if (this.isHeld(slot)) (this.extra[slot] as Held).cold = k;
    else this.extra[slot] = k;
  }
  version(id: number): Version | undefined {
    const slot = this.slots.find(id);
    if (slot < 0) return undefined;
    return this.isHeld(slot) ? (this.extra[slot] as Held).version : this.versionAt(slot);
  }
  /** Whether `id` is held with exactly this version; makes no object (a restart's hot loop). */
  sameVersion(id: number, updatedMs: number, hash: string, multi: boolean): boolean {
    const slot = this.slots.find(id);
    if (slot < 0) return false;
    if (this.isHeld(slot)) {
      const v = (this.extra[slot] as Held).version;
      return v.updatedMs === updatedMs && v.hash === hash && v.multi === multi;
    }
    if (this.updated[slot] !== updatedMs || ((this.flags[slot] as number) & MULTI) !== (multi ? MULTI : 0) || !HASH.test(hash)) return false;
    SCRATCH.write(hash, 0, HASH_BYTES, "base64url");
    return this.hashes.compare(SCRATCH, 0, HASH_BYTES, slot * HASH_BYTES, (slot + 1) * HASH_BYTES) === 0;
  }
  /** The held comment; for a bare one a new Held (see the class's comment: give it back with `set`). */
  get(id: number): Held | undefined {
    const slot = this.slots.find(id);
    if (slot < 0) return undefined;
    if (this.isHeld(slot)) return this.extra[slot] as Held;
    // A Held with no record and no note is exactly these four fields.
    return { version: this.versionAt(slot), record: null, note: null, cold: (this.extra[slot] as K | null) ?? null } as Held;
  }
  set(id: number, held: Held): void {
    if (held.record === null && held.note === null && HASH.test(held.version.hash)) {
      this.setBare(id, held.version.updatedMs, held.version.hash, held.version.multi, held.cold);
      return;
    }
    const slot = this.slots.add(id);
    this.flags[slot] = HELD;
    this.extra[slot] = held;
  }
  /** A comment with no record and no note (a restart's folded comments: no object made). */
  setBare(id: number, updatedMs: number, hash: string, multi: boolean, cold: K | null): void {
    if (!HASH.test(hash)) {
      this.set(id, { version: { updatedMs, hash, multi }, record: null, note: null, cold } as Held);
      return;
    }
    const slot = this.slots.add(id);
    this.updated[slot] = updatedMs;
    this.hashes.write(hash, slot * HASH_BYTES, HASH_BYTES, "base64url");
    this.flags[slot] = multi ? MULTI : 0;
    this.extra[slot] = cold;
  }
  delete(id: number): void {
    const slot = this.slots.delete(id);
    if (slot >= 0) this.extra[slot] = null;
  }
  /** Highest id and newest updated ms (0 and -Infinity when empty). */
  maxima(): { maxId: number; maxUpdatedMs: number } {
    let maxId = 0;
    let maxUpdatedMs = Number.NEGATIVE_INFINITY;
    for (let slot = 0; slot < this.slots.end; slot++) {
      const id = this.slots.idAt(slot);
      if (id === 0) continue;
      if (id > maxId) maxId = id;
      const ms = this.isHeld(slot) ? (this.extra[slot] as Held).version.updatedMs : (this.updated[slot] as number);
      if (ms > maxUpdatedMs) maxUpdatedMs = ms;
    }
    return { maxId, maxUpdatedMs };
  }

  /** SlotColumns, for IdSlots. */
  resize(capacity: number): void {
    const updated = new Float64Array(capacity);
    updated.set(this.updated);
    this.updated = updated;
    const hashes = Buffer.alloc(capacity * HASH_BYTES);
    this.hashes.copy(hashes);
    this.hashes = hashes;
    const flags = new Uint8Array(capacity);
    flags.set(this.flags);
    this.flags = flags;
  }
  move(from: number, to: number): void {
    this.updated[to] = this.updated[from] as number;
    this.hashes.copy(this.hashes, to * HASH_BYTES, from * HASH_BYTES, (from + 1) * HASH_BYTES);
    this.flags[to] = this.flags[from] as number;
    this.extra[to] = this.extra[from] ?? null;
  }
  clear(from: number, to: number): void {
    this.flags.fill(0, from, to);
    if (this.extra.length > from) this.extra.length = from;
  }

  private isHeld(slot: number): boolean {
    return ((this.flags[slot] as number) & HELD) !== 0;
  }
  private heldAt(slot: number): Held | undefined {
    return slot >= 0 && this.isHeld(slot) ? (this.extra[slot] as Held) : undefined;
  }
  private versionAt(slot: number): Version {
    const at = slot * HASH_BYTES;
    return { updatedMs: this.updated[slot] as number, hash: this.hashes.toString("base64url", at, at + HASH_BYTES), multi: ((this.flags[slot] as number) & MULTI) !== 0 };
  }
}
