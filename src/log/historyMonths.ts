/**
 * The monthly partitions of the history tables (docs/operations.md "Archive a month";
 * migration 280): names, bounds and the months created ahead of the writer.
 */
import { SqlState, sqlState, withTransaction, type Pool, type Queryable } from '../platform/db.ts';
import { RefusedError, UsageError } from '../platform/errors.ts';

/** The partitioned history tables, each with its partition key and its row key (keyset order). */
export const HISTORY_TABLES = [
  { table: 'decision_event', partitionKey: 'recorded_at', rowKey: 'position' },
  { table: 'inbox_message', partitionKey: 'ingested_at', rowKey: 'msg_id' },
  { table: 'proc_state_hst', partitionKey: 'archived_at', rowKey: 'msg_id' },
] as const;
export type HistoryTable = (typeof HISTORY_TABLES)[number];
/** The decision log's spec among them (its months decide which months there are). */
export const DECISION_LOG_TABLE = HISTORY_TABLES[0];

/** Months kept ahead of now (a DEFAULT partition catches anything beyond; docs/operations.md). */
export const MONTHS_AHEAD = 12;

/** A UTC month as `YYYY-MM`. */
export type Month = string;

/** `YYYY-MM` checked, or a UsageError. */
export function parseMonth(text: string): Month {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text.trim());
  if (!m) throw new UsageError(`a month is YYYY-MM (e.g. 2026-03); got '${text}'`);
  return `${m[1]}-${m[2]}`;
}

/** The UTC month of an instant. */
export const monthOf = (d: Date): Month => d.toISOString().slice(0, 7);

/** The month after `m`. */
export function nextMonth(m: Month): Month {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
}

/** The partition of `table` for month `m` (migration 280's naming: decision_event_y2026m03). */
export const partitionName = (table: string, m: Month): string => `${table}_y${m.slice(0, 4)}m${m.slice(5, 7)}`;

/** First instant of month `m` (UTC). */
export const monthStart = (m: Month): Date => new Date(`${m}-01T00:00:00.000Z`);

/** The months that have a partition of `table` (attached), oldest first. */
export async function attachedMonths(q: Queryable, table: string): Promise<Month[]> {
  const { rows } = await q.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );
  const months: Month[] = [];
  for (const r of rows) {
    const m = /_y(\d{4})m(\d{2})$/.exec(r.name);
    if (m) months.push(`${m[1]}-${m[2]}`);
  }
  return months;
}

/** How long ensureMonthsAhead waits for the locks of one month's attach before it leaves the rest to its next run. */
export const AHEAD_LOCK_TIMEOUT = '2s';

/**
 * Create the partitions of every history table from now's month to MONTHS_AHEAD after it (those
 * missing); returns how many it created. Each month is made as migration 360 makes one (a plain
 * table, then ATTACH), not with CREATE TABLE … PARTITION OF, whose ACCESS EXCLUSIVE lock on
 * the parent waits behind every open reader of the table (a backup's pg_dump holds one for its
 * whole run) while every append queues behind it: the writer would stop for as long as the backup
 * runs. The attach takes SHARE UPDATE EXCLUSIVE on the parent, which appends never wait for, and an
 * exclusive lock on the DEFAULT partition for the bound check, waited for at most `lockTimeout`:
 * when a reader holds the table longer, the rest is left to the next run (twelve months of slack).
 * A month whose rows sit in the DEFAULT partition already (a clock far ahead) is left there: its
 * partition cannot be attached without moving them (`msgx archive` splits the DEFAULT partition).
 */
export async function ensureMonthsAhead(pool: Pool, now: Date, lockTimeout = AHEAD_LOCK_TIMEOUT): Promise<number> {
  let created = 0;
  for (const { table } of HISTORY_TABLES) {
    const have = new Set(await attachedMonths(pool, table));
    let m = monthOf(now);
    for (let i = 0; i <= MONTHS_AHEAD; i++, m = nextMonth(m)) {
      if (have.has(m)) continue;
      try {
        await withTransaction(pool, async (c) => {
          await c.query("SELECT set_config('lock_timeout', $1, true)", [lockTimeout]);
          await c.query('SELECT msgx_month_partition($1, $2::date)', [table, `${m}-01`]);
        });
        created++;
      } catch (err) {
        const code = sqlState(err);
        // 23514: the DEFAULT partition holds rows of that month; they stay there.
        if (code === '23514') continue;
        if (code === SqlState.lockNotAvailable) return created;
        throw err;
      }
    }
  }
  return created;
}

/** How long the archive's split and drop and the restore's attach wait for their locks on a history table. */
export const MOVE_LOCK_TIMEOUT = '10s';

/**
 * `work`, whose transaction waits a bounded time for its locks (lock_timeout): a lock not had in
 * time (55P03, the transaction rolled back) becomes a RefusedError saying `busy`.
 */
export async function refusedWhenBusy<T>(work: () => Promise<T>, busy: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (sqlState(err) !== SqlState.lockNotAvailable) throw err;
    throw new RefusedError(busy);
  }
}

/** The months that have rows in `table`'s DEFAULT partition, oldest first. */
export async function monthsInDefault(q: Queryable, spec: HistoryTable): Promise<Month[]> {
  const { rows } = await q.query<{ m: string }>(
    `SELECT DISTINCT to_char(${spec.partitionKey} AT TIME ZONE 'UTC', 'YYYY-MM') AS m FROM ${spec.table}_default ORDER BY 1`,
  );
  return rows.map((r) => r.m);
}

/**
 * Split `table`'s DEFAULT partition into months: every row of it moves to the partition of its
 * month, and the DEFAULT partition is left empty, its space returned; one transaction of `c`;
 * returns how many rows moved. `months`: the months it holds (monthsInDefault); a row of another
 * month written since is caught by the count below. Rows of a past month land in the DEFAULT partition only when they
 * were written with that month's time after migration 280 created the partitions (an import, a
 * generated history): the writer stamps its own rows with now, whose month is always there.
 *
 * First each month's rows are copied into a plain table of its partition's name (migration 360,
 * msgx_month_table) and its bound checked (migration 370, msgx_bound_month), beside the live
 * tables: no lock any reader or writer waits for, however many rows. Then the DEFAULT partition's
 * rows are counted against those copied under a SHARE lock on it alone (readers go on; a row
 * written into it meanwhile refuses: nothing moved, run it again). Then, briefly, under the locks:
 * the DEFAULT partition is detached (PostgreSQL cannot attach a month while the DEFAULT holds rows
 * of it; ACCESS EXCLUSIVE on `table` to the commit, waited for at most `lockTimeout` rather than
 * queue every reader behind it for longer), truncated (its own TRUNCATE trigger, the log's
 * append-only guard, set aside for that statement only), the months attached (their CHECK of the
 * bound spares a scan) and the DEFAULT attached again, empty: no statement under that lock scans
 * the rows. The copy and the truncate commit together, so a row is never in neither, and no row
 * is deleted one by one (a DELETE would leave the DEFAULT partition as large as before, and the
 * database would not shrink when the months are archived).
 */
export async function splitDefaultIntoMonths(
  c: Queryable, spec: HistoryTable, months: readonly Month[], lockTimeout = MOVE_LOCK_TIMEOUT,
): Promise<SplitResult> {
  if (months.length === 0) return { rows: 0, lockedMs: 0 };
  const detached = `${spec.table}_default`;
  let copied = 0;
  for (const m of months) {
    await c.query('SELECT msgx_month_table($1, $2::date)', [spec.table, `${m}-01`]);
    const partition = partitionName(spec.table, m);
    const res = await c.query(
      `INSERT INTO ${partition} SELECT * FROM ${detached} WHERE ${spec.partitionKey} >= $1 AND ${spec.partitionKey} < $2 ORDER BY ${spec.rowKey}`,
      [monthStart(m), monthStart(nextMonth(m))],
    );
    copied += res.rowCount ?? 0;
    await c.query('SELECT msgx_bound_month($1, $2::date)', [spec.table, `${m}-01`]);
  }
  await c.query("SELECT set_config('lock_timeout', $1, true)", [lockTimeout]);
  await c.query(`LOCK TABLE ${detached} IN SHARE MODE`);
  const { rows } = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${detached}`);
  if (Number(rows[0]!.n) !== copied) {
    throw new RefusedError(`${spec.table}: rows were written into its DEFAULT partition during the split (${rows[0]!.n} there, ${copied} copied); nothing moved — run it again`);
  }
  await c.query(`ALTER TABLE ${spec.table} DETACH PARTITION ${detached}`);
  const locked = performance.now();
  await c.query('SET LOCAL lock_timeout = 0');
  await c.query(`ALTER TABLE ${detached} DISABLE TRIGGER USER`);
  await c.query(`TRUNCATE ${detached}`);
  await c.query(`ALTER TABLE ${detached} ENABLE TRIGGER USER`);
  for (const m of months) await c.query('SELECT msgx_attach_month($1, $2::date)', [spec.table, `${m}-01`]);
  await c.query(`ALTER TABLE ${spec.table} ATTACH PARTITION ${detached} DEFAULT`);
  return { rows: copied, lockedMs: Math.round(performance.now() - locked) };
}

/** What splitDefaultIntoMonths moved, and how long it held the table (from the detach to its last statement; the commit follows). */
export interface SplitResult {
  readonly rows: number;
  readonly lockedMs: number;
}

/** The last position recorded in month `m` (null: the month has no partition or no decision). */
export async function lastPositionOfMonth(q: Queryable, m: Month): Promise<string | null> {
  const partition = partitionName(DECISION_LOG_TABLE.table, m);
  const { rows: found } = await q.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [partition]);
  if (found[0]!.r === null) return null;
  const { rows } = await q.query<{ last: string | null }>(`SELECT max(position)::text AS last FROM ${partition}`);
  return rows[0]!.last;
}
