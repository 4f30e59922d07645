/**
 * The worker thread of WorkerPageReader (pageReader.ts): reads log pages from PostgreSQL and decodes
 * their messages (decodedPageOf), at most `ahead` pages ahead of what the main thread has taken; the
 * next page's statement is sent before the current page is decoded, so PostgreSQL and decoding overlap.
 */
import pg from 'pg';
import { parentPort, workerData } from 'node:worker_threads';
import '../../platform/db.ts'; // int8 as strings, as everywhere
import { decodedPageOf } from './decodedPage.ts';
import { readLogRows, type LogPageRow } from '../../log/readPage.ts';
import type { FromWorker, PageWorkerData, ToWorker } from './pageReader.ts';

const data = workerData as PageWorkerData;
const port = parentPort!;
const post = (m: FromWorker): void => port.postMessage(m);
const client = new pg.Client({ connectionString: data.databaseUrl, application_name: data.applicationName });
client.on('error', () => undefined);

let run: { id: number; credits: number; wake: (() => void) | null } | null = null;

async function produce(id: number, after: string, upTo: string, limit: number): Promise<void> {
  // The next page's statement runs in PostgreSQL while this thread decodes the current one.
  let next: Promise<LogPageRow[]> | null = readLogRows(client, after, upTo, limit);
  try {
    while (next !== null) {
      while (run !== null && run.id === id && run.credits <= 0) await new Promise<void>((r) => (run!.wake = r));
      if (run === null || run.id !== id) return;
      run.credits--;
      const rows: LogPageRow[] = await next;
      const last = rows.length > 0 ? rows[rows.length - 1]!.position : null;
      next = rows.length === limit && last !== null ? readLogRows(client, last, upTo, limit) : null;
      const page = decodedPageOf(rows, data.cfg);
      post({ type: 'page', id, text: page.text, rows: page.rows });
    }
    post({ type: 'done', id });
  } catch (err) {
    post({ type: 'error', id, error: err instanceof Error ? err.message : String(err) });
  } finally {
    next?.catch(() => undefined); // a run that ended early: its read in flight settles unobserved
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'run') {
    const old = run;
    run = { id: m.id, credits: m.ahead, wake: null };
    old?.wake?.(); // an unfinished earlier run ends
    void produce(m.id, m.after, m.upTo, m.limit);
  } else if (run !== null && run.id === m.id) {
    run.credits++;
    const wake = run.wake;
    run.wake = null;
    wake?.();
  }
});

client.connect().then(
  () => post({ type: 'ready' }),
  (err: unknown) => post({ type: 'error', id: 0, error: err instanceof Error ? err.message : String(err) }),
);
