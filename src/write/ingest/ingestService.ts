import { FailureStreak } from '../../platform/failureStreak.ts';
import { outageRetryDelay } from '../../platform/config.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { Service } from '../../platform/service.ts';
import { pollOnce, type PollResult } from './pollOnce.ts';

export interface Ingest extends Service {
  /** One poll now (tests, tools); the loop keeps its own schedule. */
  pollOnce(): Promise<PollResult>;
}

/**
 * Polls CMINMSGS every MSGX_POLL_INTERVAL_MS (on the runtime clock), at once again after a full
 * batch. A mailbox or database outage is logged once and retried with backoff, at most
 * OUTAGE_RETRY_MAX_MS apart, so ingest resumes within that of the dependency coming back.
 */
export function createIngest(rt: Runtime): Ingest {
  const log = rt.log.child({ role: 'ingest' });
  const stop = new AbortController();
  let loop: Promise<void> | undefined;
  // Polls never overlap: the loop and a caller of pollOnce() take turns.
  let turn: Promise<unknown> = Promise.resolve();
  const poll = (): Promise<PollResult> => {
    const p = turn.then(() => pollOnce(rt, log));
    turn = p.catch(() => undefined);
    return p;
  };

  async function run(): Promise<void> {
    const failures = new FailureStreak(log, 'ingest poll failed; retrying with backoff', 'ingest resumed');
    while (!stop.signal.aborted) {
      let sleepMs = rt.cfg.pollIntervalMs;
      try {
        const r = await poll();
        failures.succeeded();
        if (r.copied > 0 || r.gapsExpired > 0) log.debug({ ...r }, 'ingested');
        if (r.read >= rt.cfg.ingestBatch) sleepMs = 0;
      } catch (err) {
        failures.failed(err);
        sleepMs = Math.max(rt.cfg.pollIntervalMs, outageRetryDelay(rt.cfg, failures.count));
      }
      if (sleepMs > 0) await rt.clock.sleep(sleepMs, stop.signal);
    }
  }

  return {
    name: 'ingest',
    async start() {
      loop = run();
    },
    async stop() {
      stop.abort();
      await loop;
    },
    pollOnce: poll,
  };
}
