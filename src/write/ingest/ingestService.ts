import { outageRetryDelay } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../../platform/service.ts';
import { newPollState, pollOnce, type PollResult } from './pollOnce.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';

/** Polls failing in a row that make /readyz say "not ready" (a poison row, a broken mailbox). */
export const STALL_FAILURES = 3;

export interface Ingest extends Service {
  /** One poll now (tests, tools); the loop keeps its own schedule. */
  pollOnce(): Promise<PollResult>;
  /**
   * /readyz: not ready once the loop has failed STALL_FAILURES polls in a row, or has not finished
   * a poll for MSGX_INGEST_STALL_MS — with the reason (the last error).
   */
  readonly readiness: ReadinessCheck;
}

/**
 * Polls CMINMSGS every MSGX_POLL_INTERVAL_MS (on the runtime clock), at once again after a full
 * batch. A mailbox or database outage is logged once and retried with backoff, at most
 * OUTAGE_RETRY_MAX_MS apart, so ingest resumes within that of the dependency coming back.
 */
export function createIngest(rt: Runtime): Ingest {
  const log = rt.log.child({ role: 'ingest' });
  let started = false;
  // Polls never overlap: the loop and a caller of pollOnce() take turns.
  let turn: Promise<unknown> = Promise.resolve();
  const state = newPollState();
  let lastOkAt = rt.clock.now().getTime();
  let failuresInRow = 0;
  let lastError: string | undefined;
  const poll = (): Promise<PollResult> => {
    const p = turn.then(() => pollOnce(rt, log, state));
    turn = p.catch(() => undefined);
    p.then(
      () => {
        lastOkAt = rt.clock.now().getTime();
        failuresInRow = 0;
        lastError = undefined;
      },
      (err: unknown) => {
        failuresInRow++;
        lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      },
    );
    return p;
  };
  const readiness: ReadinessCheck = {
    name: 'ingest',
    async check() {
      const since = rt.clock.now().getTime() - lastOkAt;
      if (failuresInRow >= STALL_FAILURES) {
        throw new Error(`ingest stalled: ${failuresInRow} polls failed in a row; last error: ${(lastError ?? '').slice(0, 300)}`);
      }
      if (started && since > rt.cfg.ingestStallMs) {
        throw new Error(`ingest stalled: no poll completed for ${Math.round(since / 1000)} s${lastError ? `; last error: ${lastError.slice(0, 300)}` : ''}`);
      }
    },
  };

  const loop = createServiceLoop({
    clock: rt.clock,
    log,
    failedMsg: 'ingest poll failed; retrying with backoff',
    resumedMsg: 'ingest resumed',
    async step() {
      const r = await poll();
      if (r.copied > 0 || r.gapsExpired > 0) log.debug({ ...r }, 'ingested');
      return r.more ? 0 : rt.cfg.pollIntervalMs;
    },
    retryMs: (failures) => Math.max(rt.cfg.pollIntervalMs, outageRetryDelay(rt.cfg, failures)),
  });

  return {
    name: 'ingest',
    async start() {
      lastOkAt = rt.clock.now().getTime();
      started = true;
      loop.start();
    },
    async stop() {
      await loop.stop();
    },
    pollOnce: poll,
    readiness,
  };
}
