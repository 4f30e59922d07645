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
import { newestSnapshot, snapshotDays, snapshotSlice, type SnapshotLookup } from './newestSnapshot.ts';
import { decodeHead, type DayReader, type ModelImage } from './snapshotCodec.ts';

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
  const { found, image } = await openNewest(pool, fingerprint, daysInBackground(model));
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
      const restored = await image!;
      if (model.restore(restored)) {
        snapshot = found.usable.position;
        sayFetched(log, restored, found.usable.bytes, t0, now);
      }
    } catch (err) {
      log.warn({ err, snapshotId: found.usable.id, position: found.usable.position }, 'write model: snapshot cannot be read; folding the log from position 0');
    }
  }
  // A fold over archived months would build a model with a hole (docs/recovery.md "Archived history").
  await refuseArchivedAfter(pool, snapshot ?? '0', snapshot === null ? startWithout(found.foreign) : `the write model (from its snapshot at ${snapshot})`);
  return caughtUp(log, model, snapshot === null ? 'position 0' : 'snapshot', snapshot, await model.catchUp(pool), now() - t0);
}

/** Who refuses when the start has no snapshot to begin from, and why it has none. */
function startWithout(foreign: number): string {
  return foreign > 0 ? 'the write model (no snapshot of this fold code: the stored ones were made by other fold code)' : 'the write model (no usable snapshot)';
}

/**
 * One line when the snapshot's days are in. When they cannot be read (gone, cut short, a damaged
 * day), the model starts over before its first decision, and the pump says so in one line then
 * (WriteModel.ready).
 */
function sayFetched(log: Logger, image: ModelImage, bytes: number, t0: number, now: () => number): void {
  image.fetched?.then(
    () => log.info({ position: image.position, bytes, ms: now() - t0 }, 'write model: snapshot flights fetched'),
    () => undefined,
  );
}

function caughtUp(log: Logger, model: WriteModel, from: Warmed['from'], snapshot: string | null, folded: number, ms: number): Warmed {
  log.info({ from, snapshot, folded, position: model.position, flights: model.flights.size, ms }, 'write model caught up');
  return { from, snapshot, folded, ms };
}

/**
 * The days no decision asked for are fetched after the pump's first step against the model (the
 * messages waiting at a start go first, fetching only their own days), or at most
 * BACKGROUND_DAYS_AFTER_MS after the header: a standby's model, whose pump does not run yet, and a
 * first step that takes long do not hold the snapshot's transaction open.
 */
export const BACKGROUND_DAYS_AFTER_MS = 2_000;

function daysInBackground(model: WriteModel): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, BACKGROUND_DAYS_AFTER_MS);
    timer.unref();
    void model.firstStep.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The newest usable snapshot for a start: its head read now, its days' bytes fetched one day at a
 * time beside the rest of the start, newest first and any day a decision needs before the others
 * (docs/recovery.md "Start cost"), on the same REPEATABLE READ transaction, so a writer deleting
 * the row meanwhile does not take them away; the transaction ends when they are in.
 */
async function openNewest(pool: Pool, fingerprint: string, background: Promise<void>): Promise<{ found: SnapshotLookup; image: Promise<ModelImage> | undefined }> {
  const c = await pool.connect();
  let open = true;
  const end = (err?: unknown): void => {
    if (!open) return;
    open = false;
    if (err !== undefined) c.release(err instanceof Error ? err : new Error(String(err)));
    else void c.query('COMMIT').then(() => c.release(), (e: unknown) => c.release(e instanceof Error ? e : new Error(String(e))));
  };
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const found = await newestSnapshot(c, fingerprint, await logHead(c));
    if (found.usable === undefined) {
      end();
      return { found, image: undefined };
    }
    const { id, head } = found.usable;
    const reader: DayReader = { read: (offset, length) => snapshotSlice(c, id, head.length + offset, length), close: end };
    const image = decodeHead(head, reader, background);
    image.catch(() => end()); // warmModel awaits it; a header that cannot be read reads no day
    return { found, image };
  } catch (err) {
    end(err);
    throw err;
  }
}

/**
 * The newest usable snapshot (at or before `atMost`, default the log's head) as an image with its
 * days read, or undefined (none, other fold code, unreadable, deleted meanwhile): what
 * WriteModel.reload, a rebuild and the outbox feeder's refold start from (they fold from 0 without one).
 */
export async function newestImage(q: Queryable, atMost?: string): Promise<ModelImage | undefined> {
  const { usable } = await newestSnapshot(q, foldFingerprint(), atMost ?? (await logHead(q)));
  if (usable === undefined) return undefined;
  try {
    const image = await decodeHead(usable.head, await snapshotDays(q, usable.id, usable.head.length));
    await image.fetched;
    return image;
  } catch {
    return undefined;
  }
}
