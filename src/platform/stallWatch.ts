/**
 * The one "has it moved?" readiness check (docs/operations.md "Stalled heads"): the pump's FIFO
 * head and every projector's checkpoint are watched the same way. The watched part says what it
 * waits on (`at`: the head message, the next decision to project) each time that changes, and
 * `idle()` when nothing waits; the check turns not ready once the same thing has waited longer
 * than MSGX_HEAD_STALL_READY_MS, naming it, how long, and the last error the part reported.
 */
import type { Clock } from './clock.ts';
import type { ReadinessCheck } from './service.ts';

export interface StallWatch {
  /** Waiting on `at` now; the time starts again only when `at` differs from the one before. */
  waiting(at: string): void;
  /** Moved past everything: nothing waits. */
  idle(): void;
  /** The part's latest failure (shown with the stall until the next `waiting` on a new `at` or `idle`). */
  failed(reason: string): void;
  /** Not ready while the same `at` has waited longer than `thresholdMs` (0: never). */
  readonly readiness: ReadinessCheck;
}

export interface StallWatchOptions {
  /** The readiness check's name (`pump`, `projector:outbox`). */
  readonly name: string;
  /** What waits, for the message: `FIFO head message`, `projector outbox at decision`. */
  readonly what: string;
  readonly clock: Clock;
  /** MSGX_HEAD_STALL_READY_MS; 0 turns the check off. */
  readonly thresholdMs: number;
}

export function createStallWatch(opts: StallWatchOptions): StallWatch {
  let front: { readonly at: string; readonly since: Date } | undefined;
  let lastError: string | undefined;
  return {
    waiting(at) {
      if (front?.at === at) return;
      front = { at, since: opts.clock.now() };
      lastError = undefined;
    },
    idle() {
      front = undefined;
      lastError = undefined;
    },
    failed(reason) {
      lastError = reason;
    },
    readiness: {
      name: opts.name,
      async check() {
        if (opts.thresholdMs <= 0 || front === undefined) return;
        const stalled = opts.clock.now().getTime() - front.since.getTime();
        if (stalled <= opts.thresholdMs) return;
        const why = lastError === undefined ? '' : `; last error: ${lastError.slice(0, 300)}`;
        throw new Error(
          `${opts.what} ${front.at} has not moved for ${Math.round(stalled / 1000)} s (MSGX_HEAD_STALL_READY_MS ${opts.thresholdMs} ms)${why}; see msgx status`,
        );
      },
    },
  };
}
