/**
 * One projector step: one transaction that locks the checkpoint, reads the next events, applies
 * them and advances the checkpoint with a compare-and-set, then NOTIFYs msgx_projection.
 *
 * Why `position > checkpoint` never skips an event: positions are handed out under the
 * pipeline_lock row lock and committed before the next one is handed out, so every committed
 * position is gap-free and no still-open transaction can later commit a position below one we saw.
 */
import { Channels, notify } from '../platform/channels.ts';
import type { Clock } from '../platform/clock.ts';
import type { Pool } from '../platform/db.ts';
import { noFaults, type Faults } from '../platform/faults.ts';
import { advanceCheckpoint, lockCheckpoint } from './checkpoint.ts';
import { readDecisionsAfter } from '../log/readDecisions.ts';
import type { Projector } from './projector.ts';
import type { ReadDecisions } from './sharedReads.ts';

export type BatchOutcome =
  | { readonly kind: 'idle'; readonly position: string }
  | { readonly kind: 'applied'; readonly from: string; readonly to: string; readonly count: number }
  /** The compare-and-set lost: another instance moved the checkpoint; nothing was written. */
  | { readonly kind: 'conflict' };

export class MissingCheckpointError extends Error {
  constructor(readonly projector: string) {
    super(`projection_checkpoint has no row for projector '${projector}'`);
    this.name = 'MissingCheckpointError';
  }
}

export async function runBatch(
  pool: Pool,
  projector: Projector,
  opts: { batchSize: number; clock: Clock; faults?: Faults; read?: ReadDecisions },
): Promise<BatchOutcome> {
  const faults = opts.faults ?? noFaults;
  const client = await pool.connect();
  let open = false;
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    open = true;
    const from = await lockCheckpoint(client, projector.name);
    if (from === undefined) throw new MissingCheckpointError(projector.name);
    const events = await (opts.read ?? readDecisionsAfter)(client, from, opts.batchSize);
    const last = events[events.length - 1];
    if (last === undefined) {
      await client.query('COMMIT');
      open = false;
      return { kind: 'idle', position: from };
    }
    await projector.apply(client, events, from);
    if (!(await advanceCheckpoint(client, projector.name, from, last.position, opts.clock.now()))) {
      await client.query('ROLLBACK');
      open = false;
      projector.rolledBack?.();
      return { kind: 'conflict' };
    }
    await notify(client, Channels.projection, `${projector.name}:${last.position}`);
    faults.reached(`projector.${projector.name}.uncommitted`);
    await client.query('COMMIT');
    open = false;
    faults.reached(`projector.${projector.name}.committed`);
    projector.committed?.();
    return { kind: 'applied', from, to: last.position, count: events.length };
  } catch (err) {
    if (open) {
      // A failed ROLLBACK means the connection is gone: don't hand it back to the pool.
      await client.query('ROLLBACK').catch((e: unknown) => {
        broken = e instanceof Error ? e : new Error(String(e));
      });
      projector.rolledBack?.();
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
