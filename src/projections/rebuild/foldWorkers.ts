/**
 * The rebuild's replay on worker threads (docs/projections.md "Rebuild", step 2): the flights are
 * split into shards by flid (shardFold.ts) and one worker thread per shard reads its part of the log
 * on its own connection and folds it, so reading, parsing and folding run on every core and this
 * thread is free; each worker then writes its shard's flights into the scratch tables on its own
 * connection, so building the rows runs on every core too. PostgreSQL hands each shard the decisions of its flights (by the `flids` column)
 * and every decision naming several flights or none; a shard refuses a decision whose changes name
 * a flight of another shard (UnshardableError), and the rebuild then folds in one thread.
 *
 * Bounded: a worker holds the page it folds and the next one being read, and its flights.
 */
import type { Worker } from 'node:worker_threads';
import { CancelledError } from '../../platform/errors.ts';
import { moduleBeside, startTsWorker } from '../../platform/tsWorker.ts';
import type { FlightSchema } from '../../readModel/flightTables.ts';
import type { ShardResult } from './shardFold.ts';

export interface FoldWorkerData {
  readonly shard: number;
  readonly shards: number;
  readonly databaseUrl: string;
  readonly applicationName: string;
  /** Fold the decisions with after < position <= upTo. */
  readonly after: string;
  readonly upTo: string;
  readonly pageSize: number;
  /** Where the shard's flights are written at the end, `writeChunk` flights per statement set. */
  readonly schema: FlightSchema;
  readonly writeChunk: number;
}
export type FromFoldWorker =
  /** A page folded: how many decisions it counts (each decision is counted by exactly one shard). */
  | { readonly type: 'progress'; readonly decisions: number }
  | { readonly type: 'done'; readonly result: ShardResult }
  | { readonly type: 'unshardable'; readonly position: string }
  | { readonly type: 'error'; readonly error: string };

/**
 * Young generation per worker (3 × V8's semi-space: 64 MB semi-spaces): a flight's state lives until its
 * next decision, a few thousand decisions later, so with the default 16 MB most states were copied
 * by the scavenger and promoted before they died; the fold alone took ~40% less CPU with 64 MB.
 */
export const YOUNG_GENERATION_MB = 192;

export interface FoldRun {
  readonly databaseUrl: string;
  readonly shards: number;
  readonly after: string;
  readonly upTo: string;
  readonly pageSize: number;
  readonly schema: FlightSchema;
  readonly writeChunk: number;
  /** Decisions folded so far, after each page of any shard. */
  readonly onProgress: (decisions: number) => void;
  /** Aborting ends the workers; the run rejects with CancelledError. */
  readonly signal?: AbortSignal;
}

/** The shards' results (their flights already written), or the position of a decision that cannot be sharded. Rejects when a worker fails. */
export async function foldInWorkers(run: FoldRun): Promise<{ shards: ShardResult[] } | { unshardable: string }> {
  const module = moduleBeside('foldWorker', import.meta.url);
  let folded = 0;
  const workers: Worker[] = [];
  try {
    const results = await Promise.all(
      Array.from({ length: run.shards }, (_, shard) => {
        const data: FoldWorkerData = {
          shard, shards: run.shards, databaseUrl: run.databaseUrl, applicationName: 'msgx-rebuild-fold',
          after: run.after, upTo: run.upTo, pageSize: run.pageSize, schema: run.schema, writeChunk: run.writeChunk,
        };
        const worker = startTsWorker(module, data, { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
        workers.push(worker);
        return new Promise<ShardResult | { unshardable: string }>((resolve, reject) => {
          worker.on('message', (m: FromFoldWorker) => {
            if (m.type === 'progress') run.onProgress((folded += m.decisions));
            else if (m.type === 'done') resolve(m.result);
            else if (m.type === 'unshardable') resolve({ unshardable: m.position });
            else reject(new Error(`rebuild fold worker ${shard}: ${m.error}`));
          });
          worker.on('error', reject);
          run.signal?.addEventListener('abort', () => reject(new CancelledError('rebuild cancelled')), { once: true });
          worker.on('exit', (code) => reject(new Error(`rebuild fold worker ${shard} exited (${code})`)));
        });
      }),
    );
    const refused = results.find((r): r is { unshardable: string } => 'unshardable' in r);
    return refused ?? { shards: results as ShardResult[] };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
