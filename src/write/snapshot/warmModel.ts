/**
 * Bring a write model up to the log head the quick way (docs/recovery.md "Write-model
 * snapshots"): the newest snapshot made by this fold code, then a fold of the decisions after it.
 * Without a usable one — none yet, only snapshots of other fold code, one that cannot be read —
 * it folds from position 0 and says why in one log line.
 */
import { refuseArchivedAfter } from '../../log/archivedHistory.ts';
import { logHead } from '../../log/head.ts';
import type { Pool, Queryable } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { WriteModel } from '../pump/writeModel.ts';
import { foldFingerprint } from './foldFingerprint.ts';
import { newestSnapshot } from './newestSnapshot.ts';
import { decodeImage, type ModelImage } from './snapshotCodec.ts';

export interface Warmed {
  /** Where the fold started: a snapshot, position 0, or the model as it was (a warm standby's). */
  readonly from: 'snapshot' | 'position 0' | 'warm model';
  /** The snapshot's position, or null when the fold started at 0 (or the model was already warm). */
  readonly snapshot: string | null;
  /** Decisions folded after it. */
  readonly folded: number;
  readonly ms: number;
}

export async function warmModel(pool: Pool, model: WriteModel, log: Logger, now: () => number = Date.now): Promise<Warmed> {
  const t0 = now();
  if (model.position !== '0') return caughtUp(log, model, 'warm model', null, await model.catchUp(pool), now() - t0);
  const fingerprint = foldFingerprint();
  const found = await newestSnapshot(pool, fingerprint, await logHead(pool));
  let snapshot: string | null = null;
  if (found.usable === undefined) {
    log.info(
      { fingerprint, otherCode: found.foreign },
      found.foreign > 0
        ? 'write model: the stored snapshots were made by other fold code and are never used; folding the log from position 0'
        : 'write model: no snapshot yet; folding the log from position 0',
    );
  } else {
    try {
      if (model.restore(await decodeImage(found.usable.body))) snapshot = found.usable.position;
    } catch (err) {
      log.warn({ err, snapshotId: found.usable.id, position: found.usable.position }, 'write model: snapshot cannot be read; folding the log from position 0');
    }
  }
  // A fold from 0 over archived months would build a model with a hole (docs/recovery.md "Archived history").
  if (snapshot === null) await refuseArchivedAfter(pool, '0', 'the write model (no usable snapshot)');
  return caughtUp(log, model, snapshot === null ? 'position 0' : 'snapshot', snapshot, await model.catchUp(pool), now() - t0);
}

function caughtUp(log: Logger, model: WriteModel, from: Warmed['from'], snapshot: string | null, folded: number, ms: number): Warmed {
  log.info({ from, snapshot, folded, position: model.position, flights: model.flights.size, ms }, 'write model caught up');
  return { from, snapshot, folded, ms };
}

/**
 * The newest usable snapshot as an image, or undefined (none, other fold code, unreadable): what
 * WriteModel.reload starts from (it folds from 0 without one).
 */
export async function newestImage(q: Queryable): Promise<ModelImage | undefined> {
  const { usable } = await newestSnapshot(q, foldFingerprint(), await logHead(q));
  return usable === undefined ? undefined : decodeImage(usable.body).catch(() => undefined);
}
