/**
 * The rebuild's replay from position 0 on a worker thread (docs/projections.md "Rebuild", step 2):
 * replayWorker.ts reads, folds and writes every flight into the scratch tables on its own
 * connections; the tail and the switch then fold on in this thread, reading back from the scratch
 * tables the flights they change, as the live projector reads the live ones (handing 10,000 states
 * back through postMessage cost more CPU than the worker saved). Two reasons: the fold's garbage (a flight's state lives until its next decision, a
 * few thousand decisions later) outlives V8's default young generation, and a worker can be given
 * a larger one (`resourceLimits`, which a running process cannot change for itself); and the
 * thread that serves the API stays free while a rebuild folds.
 */
import { CancelledError } from '../../platform/errors.ts';
import { moduleBeside, startTsWorker } from '../../platform/tsWorker.ts';
import type { FlightSchema } from '../../readModel/flightTables.ts';
import { YOUNG_GENERATION_MB } from './foldWorkers.ts';

export interface ReplayWorkerData {
  readonly databaseUrl: string;
  readonly applicationName: string;
  /** Fold the decisions after this position, to the log's end. */
  readonly after: string;
  readonly pageSize: number;
  readonly schema: FlightSchema;
  /** Flights per write statement set. */
  readonly chunk: number;
  readonly writeBehindAfter: number;
  /** Connections that write beside the one that reads. */
  readonly lanes: number;
}

export type FromReplayWorker =
  /** A page folded: decisions folded so far, the last one's position, flights in the fold. */
  | { readonly type: 'page'; readonly events: number; readonly position: string; readonly flights: number }
  /** The replay reached the log's end; the flights not yet written are being written. */
  | { readonly type: 'write' }
  /** Every flight folded up to `position` is written; `flights`: how many (archived ones are not). */
  | { readonly type: 'done'; readonly position: string; readonly events: number; readonly writtenBehind: number; readonly flights: number }
  | { readonly type: 'error'; readonly error: string };

export type ReplayResult = Extract<FromReplayWorker, { type: 'done' }>;

export interface ReplayRun extends Omit<ReplayWorkerData, 'applicationName'> {
  readonly onPage: (p: Extract<FromReplayWorker, { type: 'page' }>) => void;
  readonly onWrite: () => void;
  /** Aborting ends the worker (its connections close, PostgreSQL ends their statements); the run rejects with CancelledError. */
  readonly signal?: AbortSignal;
}

export async function replayInWorker(run: ReplayRun): Promise<ReplayResult> {
  const { onPage, onWrite, signal, ...rest } = run;
  const data: ReplayWorkerData = { ...rest, applicationName: 'msgx-rebuild-replay' };
  if (signal?.aborted) throw new CancelledError('rebuild cancelled');
  const worker = startTsWorker(moduleBeside('replayWorker', import.meta.url), data, { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<ReplayResult>((resolve, reject) => {
      worker.on('message', (m: FromReplayWorker) => {
        try {
          if (m.type === 'page') onPage(m);
          else if (m.type === 'write') onWrite();
          else if (m.type === 'done') resolve(m);
          else reject(new Error(`rebuild replay worker: ${m.error}`));
        } catch (err) {
          reject(err);
        }
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`rebuild replay worker exited (${code})`)));
      onAbort = () => reject(new CancelledError('rebuild cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
  }
}
