/**
 * The reference store as decisions see it: kind → code → the record's elements. Folded from the
 * log like flights (the pump's write model keeps one); immutable: folding returns a new store
 * that shares every kind it did not touch.
 */
import type { Change } from '../changes.ts';
import type { RefFields } from './record.ts';

export type ReferenceKindState = ReadonlyMap<string, RefFields>;
export type ReferenceState = ReadonlyMap<string, ReferenceKindState>;

export const EMPTY_REFERENCE: ReferenceState = new Map();

/** The store after `changes` (the same object when none of them is a reference record change). */
export function foldReference(state: ReferenceState, changes: readonly Change[]): ReferenceState {
  let next: Map<string, ReferenceKindState> | undefined;
  const copied = new Map<string, Map<string, RefFields>>();
  const kindFor = (kind: string): Map<string, RefFields> => {
    let m = copied.get(kind);
    if (!m) {
      m = new Map(state.get(kind) ?? []);
      copied.set(kind, m);
      (next ??= new Map(state)).set(kind, m);
    }
    return m;
  };
  for (const c of changes) {
    if (c.type === 'ReferenceUpserted') kindFor(c.kind).set(c.code, c.fields);
    else if (c.type === 'ReferenceDeleted') kindFor(c.kind).delete(c.code);
  }
  return next ?? state;
}

/** Records in the store, all kinds. */
export function referenceCount(state: ReferenceState): number {
  let n = 0;
  for (const m of state.values()) n += m.size;
  return n;
}
