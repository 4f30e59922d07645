/**
 * A Map whose entries may come in chunks that are decoded on first use (docs/recovery.md
 * "Write-model snapshots", "Start cost"). A chunk names its keys up front, so `has`, `size` and
 * `keys` answer without decoding; `get` of a key decodes that key's chunk only; iterating values
 * or entries decodes every chunk still pending. Writes and deletes never decode: a key set or
 * deleted simply stops waiting for its chunk.
 *
 * A chunk decodes once (its `load` is memoised by the caller, see SnapshotChunk) and may be shared
 * by several maps: the writer's model, the images it captures and the outbox feeder's copy.
 * Internals use Map.prototype directly, so a subclass's `set`/`delete` (JournaledMap records
 * them to undo) sees only the caller's changes, never a chunk being decoded.
 */

export interface LazyChunk<K, V> {
  /** Every key the chunk holds. */
  readonly keys: readonly K[];
  /** The entries (decoded on the first call, the same array after). */
  load(): readonly (readonly [K, V])[];
}

const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;
const mapHas = Map.prototype.has;
const mapEntries = Map.prototype.entries;

export class LazyMap<K, V> extends Map<K, V> {
  /** Keys whose value is still in a chunk (disjoint from the Map's own keys). */
  #pending = new Map<K, LazyChunk<K, V>>();

  constructor(entries?: Iterable<readonly [K, V]> | null) {
    // Map's constructor would call the overridden `set` before `#pending` exists.
    super();
    for (const [k, v] of entries ?? []) this.set(k, v);
  }

  /** Let the keys of `chunk` that this map does not hold yet come from it. */
  addChunk(chunk: LazyChunk<K, V>): void {
    for (const k of chunk.keys) if (!mapHas.call(this, k)) this.#pending.set(k, chunk);
  }

  /** The chunk `key` still waits for (undefined: decoded, set, deleted or never there). */
  chunkOf(key: K): LazyChunk<K, V> | undefined {
    return this.#pending.get(key);
  }

  /** How many keys still wait for their chunk. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Make this map hold what `other` holds, sharing its chunks (nothing decoded): O(entries) pointer
   * copies. `except`: keys left out. Keeps what this map holds already under other keys.
   */
  copyFrom(other: ReadonlyMap<K, V>, except: ReadonlySet<K> = new Set()): void {
    if (!(other instanceof LazyMap)) {
      for (const [k, v] of other) if (!except.has(k)) this.set(k, v);
      return;
    }
    const empty = super.size === 0 && this.#pending.size === 0;
    for (const [k, v] of mapEntries.call(other) as MapIterator<[K, V]>) if (!except.has(k)) this.set(k, v);
    if (empty && except.size === 0) {
      // Nothing here to replace (a restore, a capture): the pending keys in one native copy.
      this.#pending = new Map((other as LazyMap<K, V>).#pending);
      return;
    }
    for (const [k, c] of (other as LazyMap<K, V>).#pending) {
      if (except.has(k)) continue;
      this.delete(k);
      this.#pending.set(k, c);
    }
  }

  /** The entries decoded so far, and the still-pending keys grouped by chunk (for an encoder). */
  split(): { decoded: [K, V][]; pending: Map<LazyChunk<K, V>, K[]> } {
    const pending = new Map<LazyChunk<K, V>, K[]>();
    for (const [k, c] of this.#pending) {
      const keys = pending.get(c);
      if (keys) keys.push(k);
      else pending.set(c, [k]);
    }
    return { decoded: [...(mapEntries.call(this) as MapIterator<[K, V]>)], pending };
  }

  override get(key: K): V | undefined {
    const v = mapGet.call(this, key) as V | undefined;
    if (v !== undefined || this.#pending.size === 0) return v;
    const chunk = this.#pending.get(key);
    if (chunk === undefined) return undefined;
    this.#decode(chunk);
    return mapGet.call(this, key) as V | undefined;
  }

  override has(key: K): boolean {
    return mapHas.call(this, key) || this.#pending.has(key);
  }

  override set(key: K, value: V): this {
    this.#pending.delete(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    const waited = this.#pending.delete(key);
    return super.delete(key) || waited;
  }

  override clear(): void {
    this.#pending.clear();
    super.clear();
  }

  override get size(): number {
    return super.size + this.#pending.size;
  }

  override *keys(): MapIterator<K> {
    yield* super.keys();
    yield* [...this.#pending.keys()];
  }

  override values(): MapIterator<V> {
    this.#decodeAll();
    return super.values();
  }

  override entries(): MapIterator<[K, V]> {
    this.#decodeAll();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.#decodeAll();
    super.forEach(fn, thisArg);
  }

  /** Decode one chunk still pending, as a `get` of one of its keys would. False: none was left. */
  decodeOne(): boolean {
    const first = this.#pending.values().next();
    if (first.done) return false;
    this.#decode(first.value);
    return true;
  }

  #decode(chunk: LazyChunk<K, V>): void {
    for (const [k, v] of chunk.load()) {
      if (this.#pending.get(k) !== chunk) continue;
      this.#pending.delete(k);
      mapSet.call(this, k, v);
    }
  }

  #decodeAll(): void {
    for (const chunk of new Set(this.#pending.values())) this.#decode(chunk);
  }
}
