import type { Logger } from './logger.ts';

/**
 * The consecutive failures of a loop that retries (a database or broker outage), logged once per
 * outage instead of once per attempt: the first failure as an error, the repeats at debug, and the
 * recovery — when the loop names one — once, with how many attempts failed.
 */
export class FailureStreak {
  private n = 0;

  constructor(
    private readonly log: Logger,
    private readonly failedMsg: string,
    private readonly resumedMsg?: string,
  ) {}

  /** How many attempts in a row have failed (0 while things work); drives the retry backoff. */
  get count(): number {
    return this.n;
  }

  failed(err: unknown): void {
    if (this.n++ === 0) this.log.error({ err }, this.failedMsg);
    else this.log.debug({ err, failures: this.n }, this.failedMsg);
  }

  succeeded(): void {
    if (this.n > 0 && this.resumedMsg !== undefined) this.log.info({ failures: this.n }, this.resumedMsg);
    this.n = 0;
  }
}
