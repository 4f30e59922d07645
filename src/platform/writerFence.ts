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
}

export class FencedError extends Error {
  override name = 'FencedError';
}

export const UNFENCED: WriterFence = Object.freeze({ epoch: () => undefined, assertHeld: () => undefined });
