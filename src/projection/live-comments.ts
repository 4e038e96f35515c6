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

/**
 * The projection's live comments by id. Most comments of a long issue hold no record: folded ones
 * (hotRecords) and comments that are not the protocol's. Those keep their version in columns, a slot
 * each (updated ms, the hash's 12 bytes, multi, the entry they were folded into): ≈ 30 bytes and a map
 * entry instead of a Held, a Version, a hash string and a heap number (≈ 190 bytes a comment, 9.7 MiB of
 * the bot's heap at 50,000 comments). A comment with a record or a note, or a hash of another form,
 * keeps its Held object.
 *
 * `get` of a bare comment makes a Held from its columns: a change to it counts only once given back with
 * `set` (which stores it bare again when it holds no record and no note).
 */
export class LiveComments<K, Held extends HeldOf<K> = HeldOf<K>> {
  private readonly byId = new Map<number, Held | number>();
  private updated = new Float64Array(256);
  private hashes = Buffer.alloc(256 * HASH_BYTES);
  private flags = new Uint8Array(256);
  private readonly cold: (K | null)[] = [];
  private readonly free: number[] = [];
  private used = 0;

  get size(): number {
    return this.byId.size;
  }
  has(id: number): boolean {
    return this.byId.has(id);
  }
  /** The ids, in the order they were first set. */
  keys(): IterableIterator<number> {
    return this.byId.keys();
  }
  /** The record held for `id`, null when it holds none. */
  record(id: number): StoredRecord | null {
    const v = this.byId.get(id);
    return typeof v === "object" ? v.record : null;
  }
  /** The entry `id`'s record was folded into, else null. */
  coldOf(id: number): K | null {
    const v = this.byId.get(id);
    if (v === undefined) return null;
    return typeof v === "number" ? (this.cold[v] ?? null) : v.cold;
  }
  setCold(id: number, k: K | null): void {
    const v = this.byId.get(id);
    if (typeof v === "number") this.cold[v] = k;
    else if (v !== undefined) v.cold = k;
  }
  version(id: number): Version | undefined {
    const v = this.byId.get(id);
    return typeof v === "number" ? this.versionAt(v) : v?.version;
  }
  /** Whether `id` is held with exactly this version; makes no object (a restart's hot loop). */
  sameVersion(id: number, updatedMs: number, hash: string, multi: boolean): boolean {
    const v = this.byId.get(id);
    if (v === undefined) return false;
    if (typeof v !== "number") return v.version.updatedMs === updatedMs && v.version.hash === hash && v.version.multi === multi;
    if (this.updated[v] !== updatedMs || (this.flags[v] === 1) !== multi || !HASH.test(hash)) return false;
    SCRATCH.write(hash, 0, HASH_BYTES, "base64url");
    return this.hashes.compare(SCRATCH, 0, HASH_BYTES, v * HASH_BYTES, (v + 1) * HASH_BYTES) === 0;
  }
  /** The held comment; for a bare one a new Held (see the class's comment: give it back with `set`). */
  get(id: number): Held | undefined {
    const v = this.byId.get(id);
    if (typeof v !== "number") return v;
    // A Held with no record and no note is exactly these four fields.
    return { version: this.versionAt(v), record: null, note: null, cold: this.cold[v] ?? null } as Held;
  }
  set(id: number, held: Held): void {
    if (held.record === null && held.note === null && HASH.test(held.version.hash)) {
      this.setBare(id, held.version.updatedMs, held.version.hash, held.version.multi, held.cold);
      return;
    }
    const v = this.byId.get(id);
    if (typeof v === "number") this.release(v);
    this.byId.set(id, held);
  }
  /** A comment with no record and no note (a restart's folded comments: no object made). */
  setBare(id: number, updatedMs: number, hash: string, multi: boolean, cold: K | null): void {
    if (!HASH.test(hash)) {
      this.set(id, { version: { updatedMs, hash, multi }, record: null, note: null, cold } as Held);
      return;
    }
    const v = this.byId.get(id);
    const slot = typeof v === "number" ? v : this.slot();
    this.updated[slot] = updatedMs;
    this.hashes.write(hash, slot * HASH_BYTES, HASH_BYTES, "base64url");
    this.flags[slot] = multi ? 1 : 0;
    this.cold[slot] = cold;
    if (v !== slot) this.byId.set(id, slot);
  }
  delete(id: number): void {
    const v = this.byId.get(id);
    if (typeof v === "number") this.release(v);
    this.byId.delete(id);
  }
  /** Highest id and newest updated ms (0 and -Infinity when empty). */
  maxima(): { maxId: number; maxUpdatedMs: number } {
    let maxId = 0;
    let maxUpdatedMs = Number.NEGATIVE_INFINITY;
    for (const [id, v] of this.byId) {
      if (id > maxId) maxId = id;
      const ms = typeof v === "number" ? (this.updated[v] as number) : v.version.updatedMs;
      if (ms > maxUpdatedMs) maxUpdatedMs = ms;
    }
    return { maxId, maxUpdatedMs };
  }

  private versionAt(slot: number): Version {
    const at = slot * HASH_BYTES;
    return { updatedMs: this.updated[slot] as number, hash: this.hashes.toString("base64url", at, at + HASH_BYTES), multi: this.flags[slot] === 1 };
  }
  private slot(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if (this.used === this.updated.length) this.grow(this.used * 2);
    this.cold.push(null);
    return this.used++;
  }
  private release(slot: number): void {
    this.cold[slot] = null;
    this.free.push(slot);
  }
  private grow(capacity: number): void {
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
}
