/**
 * `msgx archive --before YYYY-MM` (docs/operations.md "Archive a month"). For each month
 * before `before` that still has partitions, oldest first, four steps, each leaving a state the
 * next run finishes (docs/recovery.md "Crashes during archive"):
 *   1. write the month's three partitions to files, and its checksum file, then read them back;
 *   2. record it: one HistoryArchived decision and the history_archive rows, one transaction;
 *   3. detach and drop the partitions, one transaction, after checking their row counts against
 *      the record under an exclusive lock;
 * A crash before 2 leaves the month in the database (the files are rewritten by the next run);
 * after 2, a verified file plus its decision, and the next run checks the files again and drops.
 * Nothing is dropped that is not on record.
 * Before the months are listed, a table whose DEFAULT partition holds rows of a month before
 * `before` (an import, a generated history) has that partition split into months, one transaction
 * per table (historyMonths.ts, splitDefaultIntoMonths).
 */
import { mkdir, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { withTransaction } from '../../platform/db.ts';
import { RefusedError } from '../../platform/errors.ts';
import type { Faults } from '../../platform/faults.ts';
import type { Logger } from '../../platform/logger.ts';
import { laterMonthsHoldEarlierPositions } from '../../log/archivedHistory.ts';
import { logHead } from '../../log/head.ts';
import { foldFingerprint } from '../../write/snapshot/foldFingerprint.ts';
import { newestSnapshot } from '../../write/snapshot/newestSnapshot.ts';
import { appendOperatorAction } from '../../log/operatorAction.ts';
import type { ArchivedFile } from '../../domain/decisionPayload.ts';
import { checksumText, every, PROGRESS_MS, readMonthFile, writeMonthFile, type FileSummary } from './archiveFile.ts';
import {
  attachedMonths, DECISION_LOG_TABLE, ensureMonthsAhead, HISTORY_TABLES, lastPositionOfMonth, monthOf, monthsInDefault, monthStart, MOVE_LOCK_TIMEOUT, refusedWhenBusy, splitDefaultIntoMonths, nextMonth,
  partitionName, type HistoryTable, type Month,
} from '../../log/historyMonths.ts';

export interface ArchiveDeps {
  readonly pool: pg.Pool;
  readonly log: Logger;
  readonly faults: Faults;
  readonly now: () => Date;
  /** How long the split and the drop wait for their locks (default MOVE_LOCK_TIMEOUT). */
  readonly lockTimeout?: string;
}

export interface ArchivedMonth {
  readonly month: Month;
  readonly decision: string;
  readonly files: readonly ArchivedFile[];
  /** True when this run only finished a month an earlier, interrupted run had recorded. */
  readonly resumed: boolean;
}

/** The files of one month: `msgx-history-2026-03.<table>.ndjson.gz` and `msgx-history-2026-03.sha256`. */
export const monthFile = (dir: string, m: Month, table: string): string => path.join(dir, `msgx-history-${m}.${table}.ndjson.gz`);
export const checksumFile = (dir: string, m: Month): string => path.join(dir, `msgx-history-${m}.sha256`);

interface RecordRow {
  tbl: string;
  file: string;
  sha256: string;
  rows: string;
  decision: string;
}

/** Archive every month before `before`; returns what was archived, oldest first. */
export async function archiveHistory(deps: ArchiveDeps, before: Month, dir: string, requestedBy: string): Promise<ArchivedMonth[]> {
  const current = monthOf(deps.now());
  // The month that will hold this run's own decision is never archived.
  if (before > current) throw new RefusedError(`archive --before ${before}: the current month ${current} holds the archive's own decision and is never archived; use --before ${current} or earlier`);
  await mkdir(dir, { recursive: true });
  for (const spec of HISTORY_TABLES) await splitDefault(deps, spec, before);
  const months = (await attachedMonths(deps.pool, DECISION_LOG_TABLE.table)).filter((m) => m < before);
  for (const spec of HISTORY_TABLES.slice(1)) {
    for (const m of await attachedMonths(deps.pool, spec.table)) if (m < before && !months.includes(m)) months.push(m);
  }
  months.sort();
  const done: ArchivedMonth[] = [];
  for (const m of months) done.push(await archiveMonth(deps, m, dir, requestedBy));
  await ensureMonthsAhead(deps.pool, deps.now());
  return done;
}

/** splitDefaultIntoMonths when the DEFAULT partition holds a month before `before`, said in the log before and after (the table is held only for the swap). */
async function splitDefault(deps: ArchiveDeps, spec: HistoryTable, before: Month): Promise<void> {
  const months = await monthsInDefault(deps.pool, spec);
  if (!months.some((m) => m < before)) return;
  deps.log.info({ table: spec.table, months }, 'archive: splitting the DEFAULT partition into these months (copied beside the table, then swapped under a short lock)');
  const t0 = performance.now();
  const split = await refusedWhenBusy(
    () =>
      withTransaction(deps.pool, async (c) => {
        const done = await splitDefaultIntoMonths(c, spec, months, deps.lockTimeout);
        deps.faults.reached('archive.moving');
        return done;
      }),
    `archive: ${spec.table} stayed busy for ${deps.lockTimeout ?? MOVE_LOCK_TIMEOUT} (long transactions reading it); nothing was moved or archived — run msgx archive again`,
  );
  deps.log.info({ table: spec.table, months, rows: split.rows, lockedMs: split.lockedMs, ms: Math.round(performance.now() - t0) }, 'archive: DEFAULT partition split into months');
}

async function archiveMonth(deps: ArchiveDeps, m: Month, dir: string, requestedBy: string): Promise<ArchivedMonth> {
  const recorded = await recordOf(deps.pool, m);
  if (recorded.length > 0) {
    // Step 2 committed before: check the files again, then drop (step 3).
    const files = recorded.map((r) => ({ table: r.tbl, file: r.file, sha256: r.sha256, rows: Number(r.rows) }));
    await verifyFiles(files);
    await dropMonth(deps, m, files);
    deps.log.info({ month: m, decision: recorded[0]!.decision }, 'archive: finished a month recorded by an interrupted run');
    return { month: m, decision: recorded[0]!.decision, files, resumed: true };
  }
  await refuseUnsafeMonth(deps.pool, m);
  await refuseWithoutSnapshot(deps.pool, m);
  const files: ArchivedFile[] = [];
  const summaries = new Map<string, FileSummary>();
  for (const spec of HISTORY_TABLES) {
    const partition = partitionName(spec.table, m);
    if (!(await exists(deps.pool, partition))) continue;
    const file = monthFile(dir, m, spec.table);
    const t0 = performance.now();
    const written = await writeMonthFile(deps.pool, spec, partition, file, every(PROGRESS_MS, (rows) => deps.log.info({ month: m, table: spec.table, rows }, 'archive: writing')));
    const t1 = performance.now();
    const reread = await readMonthFile(file, spec.rowKey, undefined, every(PROGRESS_MS, (rows) => deps.log.info({ month: m, table: spec.table, rows }, 'archive: reading back')));
    if (reread.sha256 !== written.sha256 || reread.rows !== written.rows || reread.maxKey !== written.maxKey) {
      throw new Error(`archive ${m}: ${file} does not read back as written (${reread.rows} rows, sha256 ${reread.sha256})`);
    }
    deps.log.info(
      { month: m, table: spec.table, rows: written.rows, file, writeMs: Math.round(t1 - t0), readBackMs: Math.round(performance.now() - t1) },
      'archive: file written and read back',
    );
    files.push({ table: spec.table, file, sha256: written.sha256, rows: written.rows });
    summaries.set(spec.table, written);
  }
  const sums = checksumFile(dir, m);
  await writeFile(`${sums}.partial`, checksumText(files.map((f) => ({ sha256: f.sha256, base: path.basename(f.file) }))));
  await rename(`${sums}.partial`, sums);
  deps.faults.reached('archive.written');
  const decision = await withTransaction(deps.pool, async (c) => {
    const position = await appendOperatorAction(c, { kind: 'HistoryArchived', requestedBy, payload: { month: m, files } }, deps.now());
    for (const f of files) {
      const s = summaries.get(f.table)!;
      await c.query(
        `INSERT INTO history_archive (month, tbl, file, sha256, rows, min_key, max_key, decision)
         VALUES ($1::date, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (month, tbl) DO UPDATE SET file = EXCLUDED.file, sha256 = EXCLUDED.sha256, rows = EXCLUDED.rows,
           min_key = EXCLUDED.min_key, max_key = EXCLUDED.max_key, decision = EXCLUDED.decision, dropped_at = NULL, restored_at = NULL`,
        [`${m}-01`, f.table, f.file, f.sha256, f.rows, s.minKey, s.maxKey, position],
      );
    }
    return position;
  });
  deps.faults.reached('archive.recorded');
  const dropping = performance.now();
  const lockedMs = await dropMonth(deps, m, files);
  deps.log.info(
    { month: m, decision, files: files.map((f) => f.file), dropMs: Math.round(performance.now() - dropping), lockedMs: Math.round(lockedMs) },
    'archive: month written, recorded and dropped',
  );
  return { month: m, decision, files, resumed: false };
}

/** The history_archive rows of month `m` recorded and not dropped yet (an interrupted run). */
async function recordOf(pool: pg.Pool, m: Month): Promise<RecordRow[]> {
  const { rows } = await pool.query<RecordRow>(
    `SELECT tbl, file, sha256, rows::text AS rows, decision::text AS decision FROM history_archive
      WHERE month = $1::date AND dropped_at IS NULL AND restored_at IS NULL ORDER BY tbl`,
    [`${m}-01`],
  );
  return rows;
}

/** Each file exists and its sha256 and row count are the recorded ones. */
export async function verifyFiles(files: readonly ArchivedFile[]): Promise<void> {
  for (const f of files) {
    const spec = HISTORY_TABLES.find((t) => t.table === f.table)!;
    let got: FileSummary;
    try {
      got = await readMonthFile(f.file, spec.rowKey);
    } catch (err) {
      throw new RefusedError(`archive file ${f.file} cannot be read (${(err as Error).message}); nothing was dropped`);
    }
    if (got.sha256 !== f.sha256 || got.rows !== f.rows) {
      throw new RefusedError(`archive file ${f.file} is not the one recorded (sha256 ${got.sha256}, ${got.rows} rows; recorded ${f.sha256}, ${f.rows} rows); nothing was dropped`);
    }
  }
}

/**
 * Refuse a month that is not whole or not a prefix of the log: rows of it in a DEFAULT partition;
 * decisions of it after a decision still kept (a clock set back); messages of it still in live
 * processing (proc_state: replay needs their XML).
 */
async function refuseUnsafeMonth(pool: pg.Pool, m: Month): Promise<void> {
  const lo = monthStart(m);
  const hi = monthStart(nextMonth(m));
  for (const spec of HISTORY_TABLES) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM ${spec.table}_default WHERE ${spec.partitionKey} >= $1 AND ${spec.partitionKey} < $2`,
      [lo, hi],
    );
    if (rows[0]!.n !== '0') throw new RefusedError(`archive ${m}: ${rows[0]!.n} rows of ${spec.table} for that month are in its DEFAULT partition; the month is not archived`);
  }
  const de = partitionName(DECISION_LOG_TABLE.table, m);
  if (await exists(pool, de)) {
    if (await laterMonthsHoldEarlierPositions(pool, lo, hi)) throw new RefusedError(`archive ${m}: later months hold decisions before its last one (recorded_at went back); archiving it would cut the log`);
  }
  const im = partitionName('inbox_message', m);
  if (await exists(pool, im)) {
    const { rows } = await pool.query<{ live: string }>(`SELECT count(*)::text AS live FROM proc_state p JOIN ${im} i USING (msg_id)`);
    if (rows[0]!.live !== '0') throw new RefusedError(`archive ${m}: ${rows[0]!.live} of its messages are still in proc_state (unfinished or not yet moved to proc_state_hst); archive an older month`);
  }
}

/**
 * Refuse a month no usable write-model snapshot covers: once its decisions are gone, a start (and
 * the outbox feeder's refold) can no longer fold from position 0, so the newest snapshot of this
 * fold code must lie at or after the month's last decision (docs/operations.md "Archive a month").
 */
async function refuseWithoutSnapshot(pool: pg.Pool, m: Month): Promise<void> {
  const last = await lastPositionOfMonth(pool, m);
  if (last === null) return;
  const { usable } = await newestSnapshot(pool, foldFingerprint(), await logHead(pool));
  if (usable !== undefined && BigInt(usable.position) >= BigInt(last)) return;
  throw new RefusedError(
    `archive ${m}: no write-model snapshot of this fold code covers its last decision (position ${last}; ` +
      `${usable === undefined ? 'none stored' : `newest at ${usable.position}`}). Without one, a start could not fold the model ` +
      'once the month is gone: let the writer run this version until it records a snapshot (every MSGX_SNAPSHOT_EVERY decisions), then archive again',
  );
}

async function exists(q: pg.Pool | pg.PoolClient, relation: string): Promise<boolean> {
  const { rows } = await q.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [relation]);
  return rows[0]!.r !== null;
}

/**
 * Step 3: with writes to each partition held off (a SHARE lock: readers go on), its row count must
 * still be the recorded one; then detach and drop them and mark the record — one transaction. A
 * lock not had within MOVE_LOCK_TIMEOUT refuses: the month stays recorded and whole, and the next
 * run drops it. Returns how long the tables were locked against their readers (the detaches to
 * the commit).
 */
async function dropMonth(deps: ArchiveDeps, m: Month, files: readonly ArchivedFile[]): Promise<number> {
  return refusedWhenBusy(
    () => dropMonthLocked(deps, m, files),
    `archive ${m}: the history tables stayed busy for ${deps.lockTimeout ?? MOVE_LOCK_TIMEOUT} (long transactions reading them, a backup); recorded but not dropped — run msgx archive again`,
  );
}

/**
 * dropMonth's transaction. The counts, which read the whole month, run under SHARE locks on the
 * month's partitions only: appends (to other months) and every reader go on. The detaches then
 * lock each whole table against every reader and writer until the commit, for no scan (a month of
 * 683,217 decisions held the tables ~1 s when the counts ran under that lock), and a lock request
 * waits behind the open readers while every later query queues behind it: so it waits at most
 * MOVE_LOCK_TIMEOUT (a backup's pg_dump holds the tables for hours).
 */
async function dropMonthLocked(deps: ArchiveDeps, m: Month, files: readonly ArchivedFile[]): Promise<number> {
  return withTransaction(deps.pool, async (c) => {
    await c.query("SELECT set_config('lock_timeout', $1, true)", [deps.lockTimeout ?? MOVE_LOCK_TIMEOUT]);
    const present: { table: string; partition: string }[] = [];
    for (const f of files) {
      const partition = partitionName(f.table, m);
      if (!(await exists(c, partition))) continue;
      await c.query(`LOCK TABLE ${partition} IN SHARE MODE`);
      const { rows } = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${partition}`);
      if (Number(rows[0]!.n) !== f.rows) {
        throw new RefusedError(`archive ${m}: ${partition} has ${rows[0]!.n} rows, ${f.file} has ${f.rows}; not dropped — run msgx archive again to rewrite it`);
      }
      present.push({ table: f.table, partition });
    }
    const locked = performance.now();
    for (const p of present) {
      await c.query(`ALTER TABLE ${p.table} DETACH PARTITION ${p.partition}`);
      await c.query(`DROP TABLE ${p.partition}`);
    }
    deps.faults.reached('archive.dropping');
    await c.query('UPDATE history_archive SET dropped_at = $2 WHERE month = $1::date AND restored_at IS NULL', [`${m}-01`, deps.now()]);
    return performance.now() - locked;
  });
}

export type { HistoryTable };
