import { LazyMap } from '../platform/lazyMap.ts';

/**
 * A Map that can undo: between `begin()` and `commit()`/`rollback()` it remembers the first value
 * each key had, so an in-memory fold can follow a database transaction that rolled back.
 * `applyDecision` replaces entries and never edits them in place, so remembering the old entry is
 * enough to restore the old state. It is a LazyMap, so a copy of the writer's model (whose older
 * days may still be undecoded snapshot chunks) costs pointers, not decoding.
 */
export class JournaledMap<K, V> extends LazyMap<K, V> {
  private journal: Map<K, { had: boolean; value: V | undefined }> | undefined;

  begin(): void {
    this.journal = new Map();
  }

  commit(): void {
    this.journal = undefined;
  }

  rollback(): void {
    const j = this.journal;
    this.journal = undefined;
    if (!j) return;
    for (const [k, { had, value }] of j) {
      if (had) super.set(k, value as V);
      else super.delete(k);
    }
  }

  override set(key: K, value: V): this {
    this.remember(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.remember(key);
    return super.delete(key);
  }

  override clear(): void {
    for (const k of this.keys()) this.remember(k);
    super.clear();
  }

  private remember(key: K): void {
    // `journal` is undefined while the base constructor runs, and outside begin/commit.
    if (this.journal && !this.journal.has(key)) this.journal.set(key, { had: super.has(key), value: super.get(key) });
  }
}
