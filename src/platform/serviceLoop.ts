/**
 * The one service loop (docs/architecture.md) of every polling service — the pump, the projectors, the
 * dispatcher's targets, the backfill, the request tracker, ingest, the housekeeping jobs: run a
 * step, then wait as long as the step asked (0: go again at once) or until the Wakeup is notified;
 * a failing step is retried after `retryMs(failures in a row)` and logged once per streak
 * (FailureStreak: the first failure as an error, the repeats at debug, the recovery once).
 */
import type { Clock } from './clock.ts';
import { FailureStreak } from './failureStreak.ts';
import type { Logger } from './logger.ts';
import { Wakeup } from './wakeup.ts';

export interface ServiceLoopOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Logged at the first failure of a streak. */
  readonly failedMsg: string;
  /** Logged once when a step works again after failures (none: silent). */
  readonly resumedMsg?: string;
  /** One pass; resolves to how long to wait before the next one (≤ 0: at once). */
  step(): Promise<number>;
  /** How long to wait after the `failures`-th failed step in a row. */
  retryMs(failures: number): number;
  /** Ends the wait early when notified (default: a Wakeup of its own, notified by wake()). */
  readonly wakeup?: Wakeup;
  /** Called before each wait, i.e. whenever a pass ended with nothing more to do at once. */
  beforeWait?(): void;
}

/** Run the loop until `signal` aborts (resolves then, after the step in flight). */
export async function runServiceLoop(opts: ServiceLoopOptions, signal: AbortSignal): Promise<void> {
  const wakeup = opts.wakeup ?? new Wakeup();
  const failures = new FailureStreak(opts.log, opts.failedMsg, opts.resumedMsg);
  while (!signal.aborted) {
    const seen = wakeup.generation;
    let waitMs: number;
    try {
      waitMs = await opts.step();
      failures.succeeded();
    } catch (err) {
      failures.failed(err);
      waitMs = opts.retryMs(failures.count);
    }
    if (waitMs <= 0 || signal.aborted) continue;
    opts.beforeWait?.();
    await wakeup.wait(seen, waitMs, opts.clock, signal);
  }
}

export interface ServiceLoop {
  /** Start the loop (once; a second call does nothing). */
  start(): void;
  /** Stop it and wait for the step in flight. */
  stop(): Promise<void>;
  /** End the current wait now. */
  wake(): void;
}

export function createServiceLoop(opts: ServiceLoopOptions): ServiceLoop {
  const wakeup = opts.wakeup ?? new Wakeup();
  const stop = new AbortController();
  let loop: Promise<void> | undefined;
  return {
    start() {
      // Steps never throw out of the loop; this is for a bug in the loop's own callbacks.
      loop ??= runServiceLoop({ ...opts, wakeup }, stop.signal).catch((err: unknown) => opts.log.fatal({ err }, `${opts.failedMsg}: loop crashed`));
    },
    async stop() {
      stop.abort();
      await loop;
    },
    wake: () => wakeup.notify(),
  };
}
