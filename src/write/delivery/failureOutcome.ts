import { backoffDelay, outageRetryDelay, type Config } from '../../platform/config.ts';

export interface FailureOutcome {
  readonly attempts: number;
  readonly state: 'PENDING' | 'DEAD';
  /** When the head may be tried again (null once DEAD). */
  readonly nextAttemptAt: Date | null;
}

/**
 * What a failed send does to the rows it tried: one more attempt; DEAD once a permanent failure
 * has used up MSGX_MAX_ATTEMPTS, otherwise PENDING again after backoffDelay(attempts).
 * Transient failures (outages) never exhaust: they back off, capped at OUTAGE_RETRY_MAX_MS, until
 * the target is back — so delivery resumes within that of the target's return.
 */
export function failureOutcome(
  cfg: Pick<Config, 'maxAttempts' | 'backoffMs' | 'backoffCapMs'>,
  attemptsSoFar: number,
  transient: boolean,
  now: Date,
): FailureOutcome {
  const attempts = attemptsSoFar + 1;
  if (!transient && attempts >= cfg.maxAttempts) return { attempts, state: 'DEAD', nextAttemptAt: null };
  const delay = transient ? outageRetryDelay(cfg, attempts) : backoffDelay(cfg, attempts);
  return { attempts, state: 'PENDING', nextAttemptAt: new Date(now.getTime() + delay) };
}
