/**
 * `msgx rebuild reference`: the reference read models (reference_record, seasonal_flight,
 * seasonal_season) from the log, without downtime. They are small (master data), so the rebuild
 * is one transaction: lock the 'reference' checkpoint row (the live projector waits at its next
 * batch), delete the rows, fold every reference decision up to the log head (found through the
 * partial index decision_event_reference), write the result, set the checkpoint, NOTIFY.
 * Readers keep seeing the old rows until the commit (MVCC; DELETE takes no lock that blocks a
 * SELECT) and then see the new ones: never an empty or half-built table. A cancel (signal) or
 * error before the commit rolls everything back. One rebuild at a time (advisory lock).
 */
import { CancelledError } from '../../platform/errors.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Pool } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import { ensureCheckpoint, lockCheckpoint } from '../checkpoint.ts';
import { logHead } from '../../log/head.ts';
import { readReferenceDecisions } from '../../log/readDecisions.ts';
import { Channels, notify } from '../../platform/channels.ts';
import { REFERENCE_PROJECTOR } from './referenceProjector.ts';
import { emptyPendingReference, foldReferenceEvents } from './referenceFold.ts';
import { writeReference } from './writeReference.ts';

/** Advisory lock key of a running reference rebuild (the flight rebuild uses 7735005). */
const REFERENCE_REBUILD_LOCK = 7_735_016;
const PAGE = 5000;

export interface RebuildReferenceOptions {
  pool: Pool;
  clock: Clock;
  log: Logger;
  signal?: AbortSignal;
  pageSize?: number;
}

export type RebuildReferenceResult =
  | { ok: true; position: string; events: number; records: number; seasons: number; seconds: number }
  | { ok: false; reason: 'cancelled' | 'busy' };



export async function rebuildReference(opts: RebuildReferenceOptions): Promise<RebuildReferenceResult> {
  const started = opts.clock.now().getTime();
  const client = await opts.pool.connect();
  try {
    await ensureCheckpoint(client, REFERENCE_PROJECTOR);
    await client.query('BEGIN');
    const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [REFERENCE_REBUILD_LOCK]);
    if (!locked.rows[0]?.ok) {
      await client.query('ROLLBACK');
      return { ok: false, reason: 'busy' };
    }
    await lockCheckpoint(client, REFERENCE_PROJECTOR);
    const head = await logHead(client);
    await client.query('DELETE FROM reference_record');
    await client.query('DELETE FROM seasonal_flight');
    await client.query('DELETE FROM seasonal_season');
    const pending = emptyPendingReference();
    let after = '0';
    let events = 0;
    for (;;) {
      if (opts.signal?.aborted) throw new CancelledError('rebuild cancelled');
      const page = await readReferenceDecisions(client, after, head, opts.pageSize ?? PAGE);
      foldReferenceEvents(page, pending);
      events += page.length;
      if (page.length < (opts.pageSize ?? PAGE)) break;
      after = page.at(-1)!.position;
    }
    // The tables are empty now: deletes have nothing left to remove.
    for (const [key, r] of pending.records) if ('deleted' in r) pending.records.delete(key);
    await writeReference(client, pending);
    if (opts.signal?.aborted) throw new CancelledError('rebuild cancelled');
    await client.query('UPDATE projection_checkpoint SET position = $2::bigint, updated_at = $3 WHERE name = $1', [
      REFERENCE_PROJECTOR, head, opts.clock.now(),
    ]);
    await notify(client, Channels.projection, `${REFERENCE_PROJECTOR}:${head}`);
    await client.query('COMMIT');
    const seconds = (opts.clock.now().getTime() - started) / 1000;
    opts.log.info({ position: head, events, records: pending.records.size, seasons: pending.seasons.size }, 'reference read models rebuilt');
    return { ok: true, position: head, events, records: pending.records.size, seasons: pending.seasons.size, seconds };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (err instanceof CancelledError) return { ok: false, reason: 'cancelled' };
    throw err;
  } finally {
    client.release();
  }
}
