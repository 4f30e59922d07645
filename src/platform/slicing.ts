/**
 * Work cut into slices with a turn of the event loop between them (docs/projections.md "Big
 * decisions"): a projector that renders the 21,000 flights of one plan does so on the writer's one
 * event loop, beside the pump, the HTTP server and the writer lock's keepalive. Between slices,
 * pending I/O callbacks run (a pump round trip, a /healthz answer), so no slice holds the loop for
 * longer than `every` units of work.
 */
import { performance } from 'node:perf_hooks';

/** How a long piece of work is sliced: a turn after every `every` units. */
export interface Slicing {
  /** Units of work (flights written, outbox rows made) per slice. */
  readonly every: number;
  /** One turn of the event loop (a test injects one that counts or waits). */
  turn(): Promise<void>;
}

/** Resolves after the I/O callbacks already pending ran (setImmediate: the check phase follows the poll phase). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The projectors' default: a flight with full lists takes ~0.25 ms of the loop to write, an outbox
 * row about as much to make (CPU profile of the figure `bigplan`, docs/benchmarks.md), so a slice
 * is ~50 ms on a quiet machine and a few times that under load.
 */
export const DEFAULT_SLICING: Slicing = { every: 200, turn: nextTurn };

/** A counter over `slicing`: `tick()` after each unit; every `every`-th tick is a turn. */
export function slicer(slicing: Slicing): { tick(): Promise<void> | undefined } {
  let n = 0;
  return {
    tick() {
      n += 1;
      if (n < slicing.every) return undefined;
      n = 0;
      return slicing.turn();
    },
  };
}

/** How `runSliced` cuts a computation: a turn once a slice has run this long. */
export interface TimeSlicing {
  /** Wall milliseconds of work per slice. */
  readonly sliceMs: number;
  /** One turn of the event loop (a test injects one that counts or waits). */
  turn(): Promise<void>;
  /** Milliseconds of the clock the slices' cost is counted in (e.g. the thread's CPU time); default wall time. */
  readonly clock?: () => number;
}

/**
 * A computation in steps (src/domain/steps.ts: a generator that yields between units of work),
 * run a slice of about `sliceMs` at a time with a turn of the event loop between slices. Returns
 * its value and what its slices cost in `clock` (the turns, and whatever ran in them, not counted).
 */
export async function runSliced<T>(steps: Iterator<undefined, T, undefined>, slicing: TimeSlicing): Promise<{ value: T; spentMs: number }> {
  const clock = slicing.clock ?? (() => performance.now());
  let spentMs = 0;
  for (;;) {
    const c0 = clock();
    const until = performance.now() + slicing.sliceMs;
    let r = steps.next();
    while (!r.done && performance.now() < until) r = steps.next();
    spentMs += clock() - c0;
    if (r.done) return { value: r.value, spentMs };
    await slicing.turn();
  }
}

/**
 * The default time slicing (docs/projections.md "Big decisions"): ~50 ms of work, then a turn. A
 * 16 MiB plan's decide, fold, payload text and read-back each take a few hundred milliseconds on a
 * quiet machine and several seconds under load; in slices, /healthz and the lock's keepalive wait
 * for one slice at most.
 */
export const DEFAULT_TIME_SLICING: TimeSlicing = { sliceMs: 50, turn: nextTurn };

/** Changes in one decision from which readers and projectors handle it in slices (below: at one go, no await). */
export const SLICED_FROM_CHANGES = 2048;

/**
 * Work the rest of the writer gives way to (docs/projections.md "Big decisions"). While the pump
 * works on a big head — from its decode until the group after it has committed — the projectors
 * wait before each batch and each slice: the message behind a plan waits for the plan's own work,
 * not also for the projectors' work on the plan (their reads and writes compete for node's loop and
 * for PostgreSQL's two cores). A wait lasts at most `maxWaitMs`, so a backlog of plans slows the
 * projectors down but never stops them.
 */
export interface Foreground {
  /** Foreground work begins; the returned function ends it (once; later calls do nothing). */
  enter(): () => void;
  /** Resolves when no foreground work runs, or after maxWaitMs (a projector's batch waits on it). */
  idle(): Promise<void>;
  /** A turn of the event loop for background work, then idle() (a projector's slice). */
  turn(): Promise<void>;
}

/** How long a background turn waits for foreground work at most. */
export const FOREGROUND_MAX_WAIT_MS = 1_000;

export function createForeground(maxWaitMs = FOREGROUND_MAX_WAIT_MS): Foreground {
  let running = 0;
  let waiting: (() => void)[] = [];
  const idle = (): Promise<void> | undefined => {
    if (running === 0) return undefined;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, maxWaitMs);
      function done() {
        clearTimeout(timer);
        waiting = waiting.filter((w) => w !== done);
        resolve();
      }
      waiting.push(done);
    });
  };
  return {
    enter() {
      running += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        running -= 1;
        if (running > 0) return;
        const due = waiting;
        waiting = [];
        for (const resume of due) resume();
      };
    },
    async idle() {
      await idle();
    },
    async turn() {
      await nextTurn();
      await idle();
    },
  };
}

/** The projectors' slicing in a writer: DEFAULT_SLICING whose turns give way to `foreground`. */
export const backgroundSlicing = (foreground: Foreground): Slicing => ({ every: DEFAULT_SLICING.every, turn: () => foreground.turn() });
