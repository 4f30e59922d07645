/**
 * Plays the upstream side of a crash-matrix run: inserts the traffic into CMINMSGS in chunks
 * (consecutive ids, one INSERT each), keeping at most `backlog` messages undecided, and never past
 * the phase's `cap` — unless the pipeline is idle: then `idleChunk` more, so a crash point always
 * gets fresh work to hit.
 */
import type { TestMailbox } from '../../support/databases.ts';
import { insertCminmsgsBulk } from '../../write/support/writeHarness.ts';
import { isIdle, terminal, type Progress } from './crashProgress.ts';

export class CrashFeeder {
  private sent = 0;

  constructor(
    private readonly my: TestMailbox,
    private readonly messages: readonly string[],
    private readonly opts: { readonly chunk: number; readonly idleChunk: number; readonly backlog: number },
  ) {}

  get released(): number {
    return this.sent;
  }

  get total(): number {
    return this.messages.length;
  }

  get done(): boolean {
    return this.sent >= this.messages.length;
  }

  /** Insert the next chunk if the pipeline may take it; returns whether it did. */
  async top(p: Progress, cap: number): Promise<boolean> {
    if (this.done) return false;
    const behind = this.sent - terminal(p);
    const regular = this.sent < cap && behind < this.opts.backlog;
    if (!regular && !isIdle(p, this.sent)) return false;
    // Past the cap only a small chunk: enough work for a crash point to be hit, little taken from later phases.
    const size = regular ? Math.min(this.opts.chunk, cap - this.sent) : this.opts.idleChunk;
    const next = this.messages.slice(this.sent, this.sent + size);
    await insertCminmsgsBulk(this.my, next, next.length);
    this.sent += next.length;
    return true;
  }
}
