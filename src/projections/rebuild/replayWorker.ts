/**
 * The worker thread of replayInWorker (replayInWorker.ts): the rebuild's replay from a position to
 * the log's end and the write of every flight it folded, as rebuildFlights does them in one thread
 * (docs/projections.md "Rebuild", steps 2 and 3) — the pages as one binary COPY each (rebuildPages.ts), the
 * owned fold, the writes behind on the lanes, new flights copied in — on its own connections: one
 * that reads and a few lanes that write. Reports each page, and the end once every flight is written
 * (the flights stay here: the rebuild reads back from the scratch tables those the tail changes).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FlightState } from '../../domain/flight.ts';
import { FoldOwnership } from '../../domain/evolve.ts';
import { createPool, type PoolClient } from '../../platform/db.ts';
import { readRebuildPage } from '../../log/rebuildPages.ts';
import { flightTables } from '../../readModel/flightTables.ts';
import { emptyPending, flushPending, foldEvents } from '../flightFold.ts';
import type { FromReplayWorker, ReplayWorkerData } from './replayInWorker.ts';
import { ScratchWrites } from './scratchWrites.ts';
import { WriteBehind } from './writeBehind.ts';

const data = workerData as ReplayWorkerData;
const post = (m: FromReplayWorker): void => parentPort!.postMessage(m);

async function run(session: PoolClient, lanes: readonly PoolClient[]): Promise<FromReplayWorker> {
  const tables = flightTables(data.schema);
  const fold = new Map<string, FlightState>();
  const own = new FoldOwnership();
  const pending = emptyPending();
  const scratch = new ScratchWrites();
  const behind = new WriteBehind({ lanes, tables, chunk: data.chunk, write: scratch.write, coldAfter: data.writeBehindAfter, minFlights: Math.ceil(data.chunk / 4) });
  let position = data.after;
  let events = 0;
  // The next page is asked for before this one is folded, so PostgreSQL and the fold overlap.
  let next = readRebuildPage(session, position, data.pageSize);
  for (;;) {
    const { events: page, more } = await next;
    const last = page[page.length - 1];
    if (last === undefined) break;
    if (more) next = readRebuildPage(session, last.position, data.pageSize);
    foldEvents(fold, page, pending, own);
    events += page.length;
    behind.folded(page, events, fold, pending);
    position = last.position;
    post({ type: 'page', events, position, flights: fold.size });
    if (!more) break;
  }
  await behind.drain();
  post({ type: 'write' });
  await flushPending(session, tables, fold, pending, data.chunk, lanes, undefined, 'all', scratch.write);
  return { type: 'done', position, events, writtenBehind: behind.flightsWritten, flights: fold.size };
}

const pool = createPool(data.databaseUrl, { max: 1 + data.lanes, applicationName: data.applicationName });
const clients: PoolClient[] = [];
async function connectAndRun(): Promise<FromReplayWorker> {
  try {
    for (let i = 0; i <= data.lanes; i++) {
      const c = await pool.connect();
      clients.push(c);
      // Scratch rows are disposable until the switch: no need to wait for WAL flushes.
      await c.query('SET synchronous_commit TO off');
    }
    const [session, ...lanes] = clients;
    return await run(session!, lanes);
  } catch (err) {
    return { type: 'error', error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  } finally {
    // The connections are closed before the answer goes out: the rebuild goes on without them.
    for (const c of clients) c.release();
    await pool.end().catch(() => undefined);
  }
}
void connectAndRun().then(post);
