/**
 * `msgx restore FILE` (docs/operations.md "Archive a month"): a month back from its files. FILE is
 * the month's checksum file `msgx-history-YYYY-MM.sha256` (or one of its data files). Each data
 * file's sha256 is checked against the checksum file and against history_archive; then, in one
 * transaction, each table's month is loaded from its file into a plain table of the partition's
 * name beside the live ones (migration 360, msgx_month_table) and its row count checked; then the
 * tables are attached as partitions, a HistoryRestored decision appended and the record marked
 * restored. Only those last steps lock anything the service uses, and only until the commit: the
 * load, which follows the month's size, holds no lock on the history tables (creating the
 * partitions first held every reader and writer of them for the whole load). A crash before the
 * commit leaves the month archived as it was; a second run of a restored month changes nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { withTransaction } from '../../platform/db.ts';
import { RefusedError, UsageError } from '../../platform/errors.ts';
import type { Faults } from '../../platform/faults.ts';
import type { Logger } from '../../platform/logger.ts';
import { appendOperatorAction } from '../../log/operatorAction.ts';
import type { ArchivedFile } from '../../domain/decisionPayload.ts';
import { every, parseChecksums, PROGRESS_MS, readMonthFile } from './archiveFile.ts';
import { HISTORY_TABLES, monthStart, MOVE_LOCK_TIMEOUT, nextMonth, partitionName, refusedWhenBusy, type Month } from '../../log/historyMonths.ts';

export interface RestoreDeps {
  readonly pool: pg.Pool;
  readonly log: Logger;
  readonly faults: Faults;
  readonly now: () => Date;
  /** How long the attach at the end waits for its locks (default MOVE_LOCK_TIMEOUT). */
  readonly lockTimeout?: string;
}

export interface RestoredMonth {
  readonly month: Month;
  /** Null when the month was in the database already (nothing done). */
  readonly decision: string | null;
  readonly files: readonly ArchivedFile[];
}

/** The month and checksum file a restore argument names. */
export function restoreTarget(file: string): { month: Month; sums: string } {
  const base = path.basename(file);
  const m = /^msgx-history-(\d{4}-\d{2})\.(?:sha256|[a-z_]+\.ndjson\.gz)$/.exec(base);
  if (!m) throw new UsageError(`restore takes a month's msgx-history-YYYY-MM.sha256 file (or one of its .ndjson.gz files); got '${base}'`);
  return { month: m[1]!, sums: path.join(path.dirname(path.resolve(file)), `msgx-history-${m[1]}.sha256`) };
}

/** Advisory lock key (with the month as YYYYMM) of a running restore. */
const RESTORE_LOCK = 7_735_010;

interface Recorded {
  tbl: string;
  sha256: string;
  rows: string;
  dropped: boolean;
  restored: boolean;
}

export async function restoreMonth(deps: RestoreDeps, file: string, requestedBy: string): Promise<RestoredMonth> {
  const { month, sums } = restoreTarget(file);
  const dir = path.dirname(sums);
  let entries: { sha256: string; base: string }[];
  try {
    entries = parseChecksums(await readFile(sums, 'utf8'));
  } catch (err) {
    throw new RefusedError(`restore ${month}: cannot read ${sums} (${(err as Error).message})`);
  }
  const { rows: recorded } = await deps.pool.query<Recorded>(
    `SELECT tbl, sha256, rows::text AS rows, dropped_at IS NOT NULL AS dropped, restored_at IS NOT NULL AS restored
       FROM history_archive WHERE month = $1::date`,
    [`${month}-01`],
  );
  const files: ArchivedFile[] = [];
  for (const spec of HISTORY_TABLES) {
    const base = `msgx-history-${month}.${spec.table}.ndjson.gz`;
    const entry = entries.find((e) => e.base === base);
    const rec = recorded.find((r) => r.tbl === spec.table);
    if (!entry) {
      if (rec) throw new RefusedError(`restore ${month}: ${sums} does not list ${base}, which history_archive records`);
      continue;
    }
    if (rec && rec.sha256 !== entry.sha256) throw new RefusedError(`restore ${month}: ${base} in ${sums} is not the file history_archive records (sha256 ${entry.sha256}, recorded ${rec.sha256})`);
    const full = path.join(dir, base);
    const got = await readMonthFile(full, spec.rowKey).catch((err: Error) => {
      throw new RefusedError(`restore ${month}: cannot read ${full} (${err.message})`);
    });
    if (got.sha256 !== entry.sha256) throw new RefusedError(`restore ${month}: ${full} has sha256 ${got.sha256}, ${path.basename(sums)} says ${entry.sha256}; not restored`);
    if (rec && Number(rec.rows) !== got.rows) throw new RefusedError(`restore ${month}: ${full} holds ${got.rows} rows, history_archive records ${rec.rows}; not restored`);
    files.push({ table: spec.table, file: full, sha256: got.sha256, rows: got.rows });
  }
  if (files.length === 0) throw new RefusedError(`restore ${month}: ${sums} lists no history file`);
  if (recorded.length > 0 && !recorded.some((r) => r.dropped && !r.restored)) {
    // Recorded, not dropped yet (an interrupted archive) or restored before: the rows are here.
    deps.log.info({ month }, 'restore: the month is in the database already; nothing to do');
    return { month, decision: null, files };
  }
  const decision = await refusedWhenBusy(
    () => loadAndAttach(deps, month, files, requestedBy),
    `restore ${month}: the history tables stayed busy for ${deps.lockTimeout ?? MOVE_LOCK_TIMEOUT} at the attach (long transactions reading them, a backup); nothing restored — run msgx restore again`,
  );
  if (decision === null) {
    deps.log.info({ month }, 'restore: the month is in the database already; nothing to do');
    return { month, decision: null, files };
  }
  deps.log.info({ month, decision, files: files.map((f) => f.file) }, 'restore: month attached again from its files');
  return { month, decision, files };
}

/**
 * The restore's transaction: load each file beside the live tables, then attach and record. The
 * attach waits at most `lockTimeout` for the DEFAULT partitions' locks (a read in progress holds
 * them, and the readers after it queue behind the attach meanwhile); appends never wait for it.
 * Null: another restore of the month committed first.
 */
async function loadAndAttach(deps: RestoreDeps, month: Month, files: readonly ArchivedFile[], requestedBy: string): Promise<string | null> {
  return withTransaction(deps.pool, async (c) => {
    // One restore of a month at a time (a second waits, then finds it restored: its record says so).
    await c.query('SELECT pg_advisory_xact_lock($1, $2)', [RESTORE_LOCK, Number(month.replace('-', ''))]);
    const { rows: again } = await c.query<{ n: string }>('SELECT count(*)::text AS n FROM history_archive WHERE month = $1::date AND restored_at IS NOT NULL', [`${month}-01`]);
    if (again[0]!.n !== '0') return null; // restored meanwhile by another msgx restore
    const toAttach: (typeof HISTORY_TABLES)[number][] = [];
    for (const f of files) {
      const spec = HISTORY_TABLES.find((t) => t.table === f.table)!;
      const partition = partitionName(spec.table, month);
      const { rows: there } = await c.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [partition]);
      if (there[0]!.r !== null) {
        // An empty partition of the month (created ahead, or by an earlier version's restore): loaded in place.
        const { rows } = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${partition}`);
        if (rows[0]!.n !== '0') throw new RefusedError(`restore ${month}: ${partition} exists and holds ${rows[0]!.n} rows; not restored over them`);
      } else {
        const { rows } = await c.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM ${spec.table}_default WHERE ${spec.partitionKey} >= $1 AND ${spec.partitionKey} < $2`,
          [monthStart(month), monthStart(nextMonth(month))],
        );
        if (rows[0]!.n !== '0') throw new RefusedError(`restore ${month}: ${rows[0]!.n} rows of that month sit in ${spec.table}_default; not restored`);
        await c.query('SELECT msgx_month_table($1, $2::date)', [spec.table, `${month}-01`]);
        toAttach.push(spec);
      }
      const t0 = performance.now();
      await readMonthFile(f.file, spec.rowKey, async (lines) => {
        await c.query(`INSERT INTO ${partition} SELECT * FROM jsonb_populate_recordset(NULL::${spec.table}, $1::jsonb)`, [`[${lines.join(',')}]`]);
      }, every(PROGRESS_MS, (rows) => deps.log.info({ month, table: spec.table, rows }, 'restore: loading')));
      const { rows } = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${partition}`);
      if (Number(rows[0]!.n) !== f.rows) throw new RefusedError(`restore ${month}: ${partition} holds ${rows[0]!.n} rows after loading ${f.file} (${f.rows}); rolled back`);
      // Its bound checked now, while nothing the service uses is locked: the attach then scans nothing.
      if (toAttach.includes(spec)) await c.query('SELECT msgx_bound_month($1, $2::date)', [spec.table, `${month}-01`]);
      deps.log.info({ month, table: spec.table, rows: f.rows, ms: Math.round(performance.now() - t0) }, 'restore: loaded beside the live tables');
    }
    await c.query("SELECT set_config('lock_timeout', $1, true)", [deps.lockTimeout ?? MOVE_LOCK_TIMEOUT]);
    for (const spec of toAttach) await c.query('SELECT msgx_attach_month($1, $2::date)', [spec.table, `${month}-01`]);
    await c.query('SET LOCAL lock_timeout = 0');
    // Serialised with appends (pipeline lock), held from here to the commit only.
    const position = await appendOperatorAction(c, { kind: 'HistoryRestored', requestedBy, payload: { month, files } }, deps.now());
    await c.query('UPDATE history_archive SET restored_at = $2 WHERE month = $1::date', [`${month}-01`, deps.now()]);
    deps.faults.reached('restore.loaded');
    return position;
  });
}
