/**
 * A tiny per-request batcher (the idea of `dataloader`, without the package): every `load(key)`
 * made while resolvers of one execution level run is collected and answered by ONE call of
 * `batch(keys)`; results are cached per key for the rest of the request.
 *
 * graphql-js resolves all items of a list before awaiting them, so the 500 `stands` of a board
 * page become one `WHERE flid = ANY($1)` statement.
 */
export interface BatchLoader<K, V> {
  load(key: K): Promise<V>;
}

export function createBatchLoader<K, V>(batch: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>, missing: V): BatchLoader<K, V> {
  const cache = new Map<K, Promise<V>>();
  let queue: { key: K; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];

  const flush = (): void => {
    const items = queue;
    queue = [];
    const keys = [...new Set(items.map((i) => i.key))];
    batch(keys).then(
      (found) => {
        for (const i of items) i.resolve(found.has(i.key) ? found.get(i.key)! : missing);
      },
      (err: unknown) => {
        for (const i of items) {
          cache.delete(i.key); // a failed load is not cached
          i.reject(err);
        }
      },
    );
  };

  return {
    load(key) {
      const hit = cache.get(key);
      if (hit) return hit;
      const p = new Promise<V>((resolve, reject) => {
        // Dispatch after the current run of resolvers (their promises settle in microtasks first).
        if (queue.length === 0) setImmediate(flush);
        queue.push({ key, resolve, reject });
      });
      cache.set(key, p);
      return p;
    },
  };
}
