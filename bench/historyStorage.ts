/**
 * Storage of the history per decision and per month (docs/scaling.md "Storage per year"): the week
 * fixture (bench/harness/dayLog.ts) in decision_event, its partitions' size with indexes and TOAST,
 * and the gzip NDJSON file `msgx archive` writes of it (src/operations/archive/archiveFile.ts).
 * Run once, niced: `nice node --import tsx bench/historyStorage.ts`. Figures go to docs by hand.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPool } from '../src/platform/db.ts';
import { writeMonthFile } from '../src/operations/archive/archiveFile.ts';
import { HISTORY_TABLES } from '../src/log/historyMonths.ts';
import { dayLog } from './harness/dayLog.ts';
import { dropAll } from './harness/databases.ts';
import { nowMs } from './harness/stats.ts';

const log = await dayLog();
const pool = createPool(log.db.url, { max: 2 });
const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-storage-'));
try {
  await pool.query('VACUUM ANALYZE decision_event');
  const { rows } = await pool.query<{ name: string; bytes: string; n: string }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes, c.reltuples::bigint::text AS n
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'decision_event'::regclass AND pg_total_relation_size(c.oid) > 65536`,
  );
  const total = rows.reduce((s, r) => s + Number(r.bytes), 0);
  const spec = HISTORY_TABLES[0];
  let fileBytes = 0;
  let ms = 0;
  for (const r of rows) {
    const t0 = nowMs();
    const file = path.join(dir, `${r.name}.ndjson.gz`);
    await writeMonthFile(pool, spec, r.name, file);
    ms += nowMs() - t0;
    fileBytes += (await stat(file)).size;
  }
  const out = {
    decisions: log.events,
    partitions: rows.map((r) => ({ name: r.name, bytes: Number(r.bytes), rows: Number(r.n) })),
    tableBytesPerDecision: Math.round(total / log.events),
    archiveBytesPerDecision: Math.round(fileBytes / log.events),
    archiveWriteDecisionsPerSecond: Math.round(log.events / (ms / 1000)),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  await pool.end();
  await rm(dir, { recursive: true, force: true });
  await dropAll();
}
