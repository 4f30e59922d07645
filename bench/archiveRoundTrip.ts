/**
 * The archive round trip at scale (docs/scaling.md "Archive round trip"): a generated history of
 * MSGX_BENCH_ARCHIVE_DAYS days (default 28, from 2025-03-10: March whole, in the DEFAULT partitions
 * as a generated history or an import leaves it), its flight read model and a write-model snapshot
 * at the head; then `msgx archive --before 2025-04`, `msgx restore` of March and `msgx verify --all`
 * as processes, with the database's size before and after and what each command logged.
 * Run once, niced: `nice node --import tsx bench/archiveRoundTrip.ts`. Figures go to docs by hand.
 * The generated history has no outbox rows: verify's outbox mismatches are counted apart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPool } from '../src/platform/db.ts';
import { systemClock } from '../src/platform/clock.ts';
import { rebuildFlights } from '../src/projections/rebuild/rebuildFlights.ts';
import { foldFingerprint } from '../src/write/snapshot/foldFingerprint.ts';
import { foldModelUpTo } from '../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../src/write/snapshot/snapshotCodec.ts';
import { archivedMonthOfMessage } from '../src/log/archivedHistory.ts';
import { runMsgx } from '../test/support/msgxProcess.ts';
import { BENCH_ENV, benchLogger } from './harness/benchRuntime.ts';
import { dropAll } from './harness/databases.ts';
import { HistoryBuilder } from './harness/historyLog.ts';
import { progress } from './harness/progress.ts';

const days = Number(process.env.MSGX_BENCH_ARCHIVE_DAYS ?? 28);
const built = spawnSync(process.execPath, [fileURLToPath(new URL('../bin/build.js', import.meta.url))], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(built.stderr);
const builder = await HistoryBuilder.create();
try {
  await builder.extendToDays(days);
  const url = builder.log.db.url;
  const pool = createPool(url, { max: 3 });
  const size = async () => Number((await pool.query<{ b: string }>('SELECT pg_database_size(current_database())::text AS b')).rows[0]!.b) / 1e6;
  const months = async () => (await pool.query(`SELECT to_char(recorded_at AT TIME ZONE 'UTC','YYYY-MM') m, count(*)::int n FROM decision_event GROUP BY 1 ORDER BY 1`)).rows;
  try {
    progress('read model');
    const r = await rebuildFlights({ pool, clock: systemClock, log: benchLogger().child({ role: 'rebuild' }) });
    if (!r.ok) throw new Error('rebuild');
    progress('snapshot at head');
    const image = (await foldModelUpTo(pool, builder.log.head)).capture();
    await saveSnapshot(pool, { position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body: await encodeImage(image), writeMs: 0 });
    await pool.query('VACUUM ANALYZE');
    const out: Record<string, unknown> = { days, decisions: builder.log.events, months: await months(), mbBefore: await size() };
    const dir = await mkdtemp(path.join(os.tmpdir(), 'msgx-archround-'));
    const env = { ...BENCH_ENV, MSGX_DATABASE_URL: url, MSGX_LOG_LEVEL: 'info' };
    const timed = async (args: string[]) => {
      const t0 = Date.now();
      const res = await runMsgx(args, env);
      const all = res.output.split('\n');
      const lines = all.filter((l) => (l.includes('archive') || l.includes('restor')) && !l.startsWith('outbox:')).slice(-20).map((l) => l.replace(/"level":30,"time":"[^"]*","svc":"msgx",/, ''));
      const mismatches = { outbox: all.filter((l) => l.startsWith('outbox:')).length, other: all.filter((l) => / is missing| differs|mismatch/.test(l) && !l.startsWith('outbox:')).slice(0, 5) };
      return { code: res.code, s: (Date.now() - t0) / 1000, lines, mismatches };
    };
    progress('archive --before 2025-04');
    out.archive = await timed(['archive', '--before', '2025-04', '--dir', dir]);
    await pool.query('VACUUM');
    out.mbAfterArchive = await size();
    out.monthsAfter = await months();
    out.archivedMessage1 = await archivedMonthOfMessage(pool, '1');
    progress('restore');
    out.restore = await timed(['restore', path.join(dir, 'msgx-history-2025-03.sha256')]);
    out.mbAfterRestore = await size();
    progress('verify --all');
    out.verify = await timed(['verify', '--all']);
    await rm(dir, { recursive: true, force: true });
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await pool.end();
  }
} finally {
  await dropAll();
}
