/**
 * What a writer service asks before it decides or delivers (docs/security.md): does this process still
 * hold the writer lock, and under which epoch? Implemented by the writer lock; services built
 * without one (tests, tools) run unfenced.
 */
export interface WriterFence {
  /** The epoch of the held lock (writer_fence.epoch as text), or undefined when unfenced. */
  epoch(): string | undefined;
  /** Throws FencedError when this process cannot prove, right now, that it holds the lock. */
  assertHeld(): void;
  /**
   * Before a commit or a send: when the lease ran out only because this process's own event loop
   * was busy (one big decision decided or projected, docs/projections.md "Big decisions"), the
   * probe could not run; one round trip on the lock connection proves the lock again. Does
   * nothing while the lease is fresh; a connection that does not answer leaves it stale, and
   * assertHeld then refuses. Absent: nothing to prove again.
   */
  confirm?(): Promise<void>;
  /**
   * A commit or a send of `by` (the pump, a delivery target) was refused with `err`: never a retry
   * loop. The writer lock logs it as what it is, counts it (msgx_writer_fenced_total) and stops the
   * process with exit code 1 — the standby has taken over (docs/operations.md "Writer fenced").
   */
  fenced(err: FencedError, by: string): void;
}

export class FencedError extends Error {
  override name = 'FencedError';
}

/**
 * `found` (writer_fence.epoch as a commit read it, share-locked until that commit) is the epoch
 * `held` of `fence`, and the fence still holds; else FencedError.
 */
export function assertFenceEpoch(fence: WriterFence, held: string, found: unknown): void {
  if (found !== held) {
    throw new FencedError(`not committing: another writer took the lock (writer_fence is at ${String(found)}, this process holds ${held})`);
  }
  fence.assertHeld();
}

export const UNFENCED: WriterFence = Object.freeze({ epoch: () => undefined, assertHeld: () => undefined, fenced: () => undefined });

/** How often this process was fenced: msgx_writer_fenced_total (one per process, shared by the lock and /metrics). */
export class FencedCount {
  private n = 0;
  add(): void {
    this.n += 1;
  }
  get value(): number {
    return this.n;
  }
}
