/**
 * The worker thread of FoldWorkers (foldWorkers.ts): reads its shard's decisions up to `upTo` on
 * its own connection (readShardAfter; the next page is asked for before this one is folded, so at
 * most two pages are held) and folds them (shardFold.ts); reports progress after each page; at the
 * end writes its flights into the scratch tables and hands them back.
 */
import pg from 'pg';
import { parentPort, workerData } from 'node:worker_threads';
import '../../platform/db.ts'; // int8 as strings, as everywhere
import { readShardAfter, type ShardDecision } from '../../log/readDecisions.ts';
import type { FoldWorkerData, FromFoldWorker } from './foldWorkers.ts';
import { ShardFold, UnshardableError } from './shardFold.ts';
import { flightTables } from '../../readModel/flightTables.ts';
import { removeFlights, writeFlights } from '../writeFlights.ts';

const data = workerData as FoldWorkerData;
const post = (m: FromFoldWorker): void => parentPort!.postMessage(m);

async function run(client: pg.Client): Promise<void> {
  const shard = new ShardFold(data.shard, data.shards);
  const upTo = BigInt(data.upTo);
  let next: Promise<ShardDecision[]> | null = readShardAfter(client, data.after, data.pageSize, data.shard, data.shards);
  while (next !== null) {
    const page: ShardDecision[] = await next;
    const last = page[page.length - 1];
    next = page.length === data.pageSize && last !== undefined && BigInt(last.position) < upTo
      ? readShardAfter(client, last.position, data.pageSize, data.shard, data.shards)
      : null;
    let counted = 0;
    for (const d of page) {
      if (BigInt(d.position) > upTo) break;
      shard.fold(d);
      if (d.own || data.shard === 0) counted++;
    }
    post({ type: 'progress', decisions: counted });
  }
  const result = shard.take();
  // Scratch rows are disposable until the switch: no need to wait for WAL flushes.
  await client.query('SET synchronous_commit TO off');
  const tables = flightTables(data.schema);
  await removeFlights(client, tables, result.gone);
  for (let i = 0; i < result.flights.length; i += data.writeChunk) {
    await writeFlights(client, tables, result.flights.slice(i, i + data.writeChunk));
  }
  post({ type: 'done', result });
}

const client = new pg.Client({ connectionString: data.databaseUrl, application_name: data.applicationName });
client.on('error', () => undefined);
client
  .connect()
  .then(() => run(client))
  .catch((err: unknown) => {
    if (err instanceof UnshardableError) post({ type: 'unshardable', position: err.position });
    else post({ type: 'error', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  })
  .finally(() => client.end().catch(() => undefined));
