/**
 * A rebuild as an operator action, for `msgx rebuild` and the console's button alike: audited as a
 * `RebuildRequested` decision naming the operator, its progress and outcome in operation_progress
 * (progress.ts) so that the console shows it whichever process runs it.
 */
import { refuseArchivedAfter } from '../log/archivedHistory.ts';
import { recordOperatorAction } from '../log/operatorAction.ts';
import type { Runtime } from '../platform/runtime.ts';
import { formatProgress } from '../projections/rebuild/progress.ts';
import { rebuildFlights, type RebuildResult } from '../projections/rebuild/rebuildFlights.ts';
import { rebuildReference, type RebuildReferenceResult } from '../projections/reference/rebuildReference.ts';
import { newestImage } from '../write/snapshot/warmModel.ts';
import { startOperation, type OperationOutcome, type OperationRecorder } from './progress.ts';

export interface RebuildRun {
  /** --operator / user@host / console:<label>/<name>. */
  readonly startedBy: string;
  readonly signal?: AbortSignal;
  readonly pageSize?: number;
  /** Fold from position 0 even when a write-model snapshot of this fold code is stored. */
  readonly full?: boolean;
  /** Worker threads for a replay from position 0 (rebuildFlights' foldWorkers; default none). */
  readonly foldWorkers?: number;
  /** Where a replay from position 0 folds (rebuildFlights' replayThread; default this thread). */
  readonly replayThread?: 'worker' | 'this';
  /** Each progress line, as a terminal shows it (rate-limited by the rebuild's own tracker). */
  readonly onLine?: (line: string) => void;
  /** Once it is on record: the RebuildRequested decision's position and the operation_progress row. */
  readonly onStarted?: (s: { readonly position: string; readonly operationId: string | null }) => void;
}

type Runner = Pick<Runtime, 'pool' | 'clock' | 'log'>;

async function recorded<R>(
  rt: Runner,
  projection: 'flights' | 'reference',
  run: RebuildRun,
  body: (rec: OperationRecorder) => Promise<R>,
  outcome: (r: R) => [OperationOutcome, string],
): Promise<R> {
  const detail = run.pageSize ? `--page-size ${run.pageSize}` : undefined;
  const position = await recordOperatorAction(rt.pool, { kind: 'RebuildRequested', requestedBy: run.startedBy, payload: { projection, ...(detail ? { detail } : {}) } }, rt.clock.now());
  const rec = await startOperation(rt.pool, rt.clock, rt.log, { kind: `rebuild-${projection}`, startedBy: run.startedBy, ...(detail ? { detail } : {}) });
  run.onStarted?.({ position, operationId: rec.id });
  try {
    const r = await body(rec);
    await rec.finish(...outcome(r));
    return r;
  } catch (err) {
    await rec.finish('failed', err instanceof Error ? err.message : String(err));
    throw err;
  }
}

export async function rebuildFlightsRecorded(rt: Runner, run: RebuildRun): Promise<RebuildResult> {
  // Refused before it is on record when it would fold archived months (docs/recovery.md "Archived history").
  const image = run.full ? undefined : await newestImage(rt.pool);
  await refuseArchivedAfter(rt.pool, image?.position ?? '0', run.full ? 'rebuild --full' : 'rebuild (no usable write-model snapshot)');
  return recorded(
    rt,
    'flights',
    run,
    (rec) =>
      rebuildFlights({
        pool: rt.pool,
        clock: rt.clock,
        log: rt.log.child({ role: 'rebuild' }),
        ...(run.signal ? { signal: run.signal } : {}),
        ...(run.pageSize ? { pageSize: run.pageSize } : {}),
        ...(run.foldWorkers ? { foldWorkers: run.foldWorkers } : {}),
        ...(run.replayThread ? { replayThread: run.replayThread } : {}),
        ...(run.full ? {} : { startFrom: () => Promise.resolve(image) }),
        onProgress: (p) => {
          run.onLine?.(formatProgress('flights', p));
          rec.update({ phase: p.phase, done: p.events, total: p.total });
        },
      }),
    (r) => [r.ok ? 'done' : r.reason === 'cancelled' ? 'cancelled' : 'refused', describeFlights(r)],
  );
}

export async function rebuildReferenceRecorded(rt: Runner, run: RebuildRun): Promise<RebuildReferenceResult> {
  await refuseArchivedAfter(rt.pool, '0', 'rebuild --reference');
  return recorded(
    rt,
    'reference',
    run,
    async (rec) => {
      rec.update({ phase: 'replay', done: 0, total: null });
      const r = await rebuildReference({ pool: rt.pool, clock: rt.clock, log: rt.log.child({ role: 'rebuild' }), ...(run.signal ? { signal: run.signal } : {}) });
      if (r.ok) rec.update({ phase: 'done', done: r.events, total: r.events });
      return r;
    },
    (r) => [r.ok ? 'done' : r.reason === 'cancelled' ? 'cancelled' : 'refused', describeReference(r)],
  );
}

export function describeFlights(r: RebuildResult): string {
  if (r.ok) {
    const rate = r.seconds > 0 ? Math.round(r.events / r.seconds) : r.events;
    return `rebuilt flights: ${r.events} events, ${r.flights} flights, up to position ${r.position}, from ${r.from}, in ${r.seconds.toFixed(1)} s (${rate} events/s)`;
  }
  switch (r.reason) {
    case 'cancelled':
      return 'rebuild cancelled: scratch tables dropped, live tables untouched';
    case 'busy':
      return 'rebuild refused: another rebuild is running';
    case 'refused':
      return `rebuild refused: ${r.problems.join('; ')}`;
  }
}

export function describeReference(r: RebuildReferenceResult): string {
  if (r.ok) {
    return `rebuilt reference: ${r.events} events, ${r.records} records, ${r.seasons} seasons, up to position ${r.position}, in ${r.seconds.toFixed(1)} s`;
  }
  return r.reason === 'cancelled' ? 'rebuild reference cancelled: rolled back, live rows untouched' : 'rebuild reference refused: another reference rebuild is running';
}
