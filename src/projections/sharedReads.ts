/**
 * One read of each decision for the projectors of one process (docs/projections.md "Shared
 * reads"). The flight, outbox and reference projectors wake on the same NOTIFY and read the same
 * events; a plan snapshot's decision is megabytes of JSON that PostgreSQL would read and send, and
 * node parse, once per projector. Here the first projector to read an event parses it and the
 * others are handed the same object: their read asks PostgreSQL only for the columns of the
 * events held (readDecisionsAfterHolding), not for their changes.
 *
 * Sharing is safe because nothing changes an event after it is read: the log is append-only, and
 * the folds replace flight states, never edit them or the changes they are built from
 * (src/domain/evolve.ts applyDecision).
 *
 * Reads are taken one at a time, so a projector that wakes together with another finds the
 * other's events held instead of reading them too. An event is dropped once every projector has
 * asked for events after it, and at the latest when more than HELD_CHANGES changes are held (a
 * projector that lags or keeps failing then reads from the log as before).
 *
 * The writer also offers the events it has just committed (src/log/appendedEvents.ts), so that a
 * decision the pump made in this process is not read back from PostgreSQL at all: the projectors
 * find it held, exactly as if the first of them had read it.
 */
import type { Queryable } from '../platform/db.ts';
import { readDecisionsAfterHolding, type DecisionEvent } from '../log/readDecisions.ts';

/** How a projector reads its next batch: up to `limit` events after `after`, ascending. */
export type ReadDecisions = (q: Queryable, after: string, limit: number) => Promise<DecisionEvent[]>;

/** Changes held at most (a plan snapshot of 3,000 flights is 3,001; its objects are ~2 kB each). */
export const HELD_CHANGES = 25_000;
/** Events held at most. */
export const HELD_EVENTS = 5_000;

export interface SharedReads {
  /** The read of projector `name`; every projector that shares must take its reader before the first read. */
  reader(name: string): ReadDecisions;
  /**
   * Whether events from `position` on would be held if offered now: every projector has read, and
   * reads close enough to it (within the events held at most). A lagging projector reads the log.
   */
  wants(position: string | undefined): boolean;
  /** Hold events known to be committed (the writer's own appends), as if a projector had read them. */
  offer(events: readonly DecisionEvent[]): void;
  /**
   * Resolves once every projector has asked for the events after `position` (so each has committed
   * its batch up to it), or after `maxMs` at the latest: background work of the writer (its
   * snapshots) waits for it, so that it does not compete with the projectors for the one loop.
   */
  passed(position: string, maxMs: number): Promise<void>;
  /** Events held now (diagnostics and tests). */
  held(): number;
}

export function createSharedReads(limits: { changes?: number; events?: number } = {}): SharedReads {
  const maxChanges = limits.changes ?? HELD_CHANGES;
  const maxEvents = limits.events ?? HELD_EVENTS;
  const events = new Map<string, DecisionEvent>();
  let changes = 0;
  /** The last `after` each projector asked with; undefined until its first read. */
  const asked = new Map<string, bigint | undefined>();
  let queue: Promise<unknown> = Promise.resolve();

  const drop = (position: string): void => {
    const e = events.get(position);
    if (e === undefined) return;
    events.delete(position);
    changes -= e.changes?.length ?? 0;
  };

  const hold = (e: DecisionEvent): void => {
    const size = e.changes?.length ?? 0;
    if (size === 0 || size > maxChanges || events.has(e.position)) return;
    events.set(e.position, e);
    changes += size;
    // Oldest first (insertion order).
    for (const [position] of events) {
      if (changes <= maxChanges && events.size <= maxEvents) break;
      drop(position);
    }
  };

  /** Waiting for every projector to pass a position (`passed`). */
  let waiters: { readonly position: bigint; readonly resolve: () => void }[] = [];

  /** The least position every projector has asked past; undefined while one has not read yet. */
  const leastAsked = (): bigint | undefined => {
    let least: bigint | undefined;
    for (const a of asked.values()) {
      if (a === undefined) return undefined;
      if (least === undefined || a < least) least = a;
    }
    return least;
  };

  /** Drop what every projector has read past, and wake who waits for that. */
  const release = (): void => {
    const least = leastAsked();
    if (least === undefined) return;
    for (const position of [...events.keys()]) if (BigInt(position) <= least) drop(position);
    if (waiters.length === 0) return;
    const done = waiters.filter((w) => w.position <= least);
    waiters = waiters.filter((w) => w.position > least);
    for (const w of done) w.resolve();
  };

  async function readOnce(name: string, q: Queryable, after: string, limit: number): Promise<DecisionEvent[]> {
    asked.set(name, BigInt(after));
    release();
    // Positions are gap-free: the batch is at most after+1 … after+limit.
    const from = BigInt(after);
    const held: string[] = [];
    for (const position of events.keys()) {
      const p = BigInt(position);
      if (p > from && p <= from + BigInt(limit)) held.push(position);
    }
    const rows = await readDecisionsAfterHolding(q, after, limit, held);
    // Reads are serialised, so the events held when the statement was built are still held here.
    const out = rows.map(({ held: isHeld, ...row }): DecisionEvent => (isHeld ? heldEvent(row.position) : row));
    for (const e of out) hold(e);
    return out;
  }

  function heldEvent(position: string): DecisionEvent {
    const e = events.get(position);
    if (e === undefined) throw new Error(`shared reads: event ${position} was held when read and is gone`);
    return e;
  }

  return {
    reader(name) {
      if (!asked.has(name)) asked.set(name, undefined);
      return (q, after, limit) => {
        const read = queue.then(() => readOnce(name, q, after, limit));
        queue = read.catch(() => undefined);
        return read;
      };
    },
    wants(position) {
      if (position === undefined) return false;
      for (const a of asked.values()) if (a === undefined || BigInt(position) - a > BigInt(maxEvents)) return false;
      return asked.size > 0;
    },
    offer(offered) {
      // Behind any read under way: a read relies on the events it found held staying held.
      queue = queue.then(() => {
        for (const e of offered) hold(e);
      });
    },
    passed(position, maxMs) {
      if (asked.size === 0) return Promise.resolve();
      const least = leastAsked();
      if (least !== undefined && BigInt(position) <= least) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxMs);
        timer.unref();
        function done(): void {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w.resolve !== done);
          resolve();
        }
        waiters.push({ position: BigInt(position), resolve: done });
      });
    },
    held: () => events.size,
  };
}
