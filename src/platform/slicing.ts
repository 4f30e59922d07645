/**
 * Work cut into slices with a turn of the event loop between them (docs/projections.md "Big
 * decisions"): a projector that renders the 21,000 flights of one plan does so on the writer's one
 * event loop, beside the pump, the HTTP server and the writer lock's keepalive. Between slices,
 * pending I/O callbacks run (a pump round trip, a /healthz answer), so no slice holds the loop for
 * longer than `every` units of work.
 */

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
