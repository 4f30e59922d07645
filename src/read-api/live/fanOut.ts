/**
 * In-process fan-out of events to subscribers, each an async iterator with its own queue. A
 * subscriber is registered when `subscribe` returns (not at its first `next()`), so nothing
 * published after subscribing is missed. A subscriber that falls more than `maxQueue` events
 * behind is ended (its client re-subscribes) rather than growing memory without bound.
 */
export interface FanOut<T> {
  publish(value: T): void;
  subscribe(accept: (value: T) => boolean): AsyncIterableIterator<T>;
  size(): number;
  closeAll(): void;
}

export function createFanOut<T>(maxQueue = 10_000): FanOut<T> {
  const subscribers = new Set<{ push: (v: T) => void; close: () => void }>();
  return {
    size: () => subscribers.size,
    publish(value) {
      for (const s of subscribers) s.push(value);
    },
    closeAll() {
      for (const s of [...subscribers]) s.close();
    },
    subscribe(accept) {
      const queue: T[] = [];
      let wake: ((r: IteratorResult<T>) => void) | null = null;
      let closed = false;
      const entry = {
        push(v: T) {
          if (closed || !accept(v)) return;
          if (wake) {
            const w = wake;
            wake = null;
            w({ value: v, done: false });
          } else if (queue.length >= maxQueue) {
            entry.close();
          } else {
            queue.push(v);
          }
        },
        close() {
          closed = true;
          subscribers.delete(entry);
          if (wake) {
            const w = wake;
            wake = null;
            w({ value: undefined, done: true });
          }
        },
      };
      subscribers.add(entry);
      const iterator: AsyncIterableIterator<T> = {
        [Symbol.asyncIterator]: () => iterator,
        next() {
          if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
          if (closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => (wake = resolve));
        },
        return() {
          queue.length = 0;
          entry.close();
          return Promise.resolve({ value: undefined, done: true });
        },
        throw(err?: unknown) {
          queue.length = 0;
          entry.close();
          return Promise.reject(err);
        },
      };
      return iterator;
    },
  };
}
