/**
 * A projector turns decision events into rows. The runtime (runBatch.ts) calls `apply` inside the
 * transaction that also advances the projector's checkpoint; in-memory state a projector keeps
 * must follow the transaction's outcome through `committed` / `rolledBack`.
 */
import type { PoolClient } from '../platform/db.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';

export interface Projector {
  readonly name: string;
  /**
   * Apply `events` (ascending, gap-free, the first one right after `from`) with `client`, which is
   * inside the batch transaction. Throwing rolls the batch back.
   */
  apply(client: PoolClient, events: readonly DecisionEvent[], from: string): Promise<void>;
  /** The batch transaction committed. */
  committed?(): void;
  /** The batch transaction rolled back (error or lost compare-and-set). */
  rolledBack?(): void;
}
