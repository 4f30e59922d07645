/**
 * What `msgx archive` took out of the database (docs/operations.md "Archive a month"): the
 * history_archive rows of months dropped and not restored. Every reader that would fold the log
 * from a position an archived month holds asks here first and refuses with the files to restore
 * (docs/recovery.md "Archived history"), instead of folding a log with a hole.
 */
import { RefusedError } from '../platform/errors.ts';
import type { Queryable } from '../platform/db.ts';

export interface ArchivedMonthFiles {
  /** `YYYY-MM`. */
  readonly month: string;
  /** The month's checksum file (what `msgx restore` takes), beside its data files. */
  readonly restoreFile: string;
  /** Largest position of the month's decisions ('0' when it had none). */
  readonly lastPosition: string;
}

export interface ArchivedDecisions {
  /** Every position up to this one may be archived ('0': nothing is). */
  readonly upTo: string;
  readonly months: readonly ArchivedMonthFiles[];
}

/** The months archived now, oldest first, and the last position they hold. */
export async function archivedDecisions(q: Queryable): Promise<ArchivedDecisions> {
  const { rows } = await q.query<{ month: string; file: string; last: string }>(
    `SELECT to_char(month, 'YYYY-MM') AS month, min(file) AS file,
            coalesce(max(max_key) FILTER (WHERE tbl = 'decision_event'), 0)::text AS last
       FROM history_archive WHERE dropped_at IS NOT NULL AND restored_at IS NULL
      GROUP BY month ORDER BY month`,
  );
  let upTo = 0n;
  const months = rows.map((r) => {
    if (BigInt(r.last) > upTo) upTo = BigInt(r.last);
    return { month: r.month, restoreFile: checksumPathOf(r.file, r.month), lastPosition: r.last };
  });
  return { upTo: upTo.toString(), months };
}

/** `…/msgx-history-2026-03.decision_event.ndjson.gz` → `…/msgx-history-2026-03.sha256`. */
export function checksumPathOf(dataFile: string, month: string): string {
  const i = dataFile.lastIndexOf(`msgx-history-${month}.`);
  return `${i < 0 ? '' : dataFile.slice(0, i)}msgx-history-${month}.sha256`;
}

/** The message below the operator's words: which files bring the positions back. */
export function restoreAdvice(months: readonly ArchivedMonthFiles[]): string {
  return `restore ${months.length === 1 ? 'it' : 'them'} first: ${months.map((m) => `msgx restore ${m.restoreFile}`).join('; ')}`;
}

/**
 * Refuse `what` when it must read decisions after position `after` and some of those are archived:
 * names the months and the `msgx restore` commands.
 */
export async function refuseArchivedAfter(q: Queryable, after: string, what: string): Promise<void> {
  const archived = await archivedDecisions(q);
  if (BigInt(after) >= BigInt(archived.upTo)) return;
  const needed = archived.months.filter((m) => BigInt(m.lastPosition) > BigInt(after));
  throw new RefusedError(
    `${what} reads the log from position ${after}, but positions up to ${archived.upTo} are archived ` +
      `(${needed.map((m) => m.month).join(', ')}); ${restoreAdvice(needed)}`,
  );
}

/**
 * The archived months that begin at or before the instant `asOf`, oldest first: a flight's history
 * up to `asOf` may lie in them (time travel, docs/read-api.md).
 */
export async function archivedMonthsUntil(q: Queryable, asOf: Date): Promise<ArchivedMonthFiles[]> {
  const until = asOf.toISOString().slice(0, 7);
  return (await archivedDecisions(q)).months.filter((m) => m.month <= until);
}

/**
 * The archived month whose messages' id range holds `msgId` (history_archive's inbox_message rows),
 * or undefined. Ids are handed out in arrival order, so a range match names the month to restore.
 */
export async function archivedMonthOfMessage(q: Queryable, msgId: string): Promise<ArchivedMonthFiles | undefined> {
  const { rows } = await q.query<{ month: string; file: string }>(
    `SELECT to_char(month, 'YYYY-MM') AS month, file FROM history_archive
      WHERE tbl = 'inbox_message' AND dropped_at IS NOT NULL AND restored_at IS NULL
        AND $1::bigint BETWEEN min_key AND max_key
      ORDER BY month LIMIT 1`,
    [msgId],
  );
  const r = rows[0];
  return r && { month: r.month, restoreFile: checksumPathOf(r.file, r.month), lastPosition: '0' };
}

/**
 * Whether decisions recorded at or after `monthEnd` sit before the last position of the month
 * [monthStart, monthEnd) (a clock set back): then the month is not a prefix of the log.
 */
export async function laterMonthsHoldEarlierPositions(q: Queryable, monthStart: Date, monthEnd: Date): Promise<boolean> {
  const { rows } = await q.query<{ later: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM decision_event WHERE recorded_at >= $2
               AND position < (SELECT max(position) FROM decision_event WHERE recorded_at >= $1 AND recorded_at < $2)) AS later`,
    [monthStart, monthEnd],
  );
  return rows[0]!.later;
}
