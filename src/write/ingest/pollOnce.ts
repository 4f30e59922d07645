import { SqlState, sqlState, withOpenedTransaction, type PoolClient } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import { fittingCount } from '../../platform/mailbox/inboxBatch.ts';
import type { InboxBatch, InboxRow, InboxRowSize, Mailbox } from '../../platform/mailbox/port.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { appendDecisions, lockPipeline, type NewDecisionOf } from '../../log/appendDecisions.ts';
import { INBOX_SOURCE } from '../pump/findHeads.ts';
import { COPY_CTES, copyValues, FAST_POLL, lockWatermarkSql, readWatermark } from './copyInbox.ts';
import { expiredGaps, markAppeared, recordGaps, recordIdRange, type OpenGap } from './gaps.ts';
import { Channels } from '../../platform/channels.ts';

// A poll's writes after the cursor lock, as one statement: the copy ($1–$6, COPY_CTES), open gaps
// opened at or before $7 expire, the cursor moves to $8 when $9, NOTIFY $11 when anything was
// copied or expired or gap rows appeared ($10).
const POLL = `WITH ${COPY_CTES},
    expired AS (
      UPDATE inbox_gap SET closed_at = $2::timestamptz, closed_by = 'expired'
       WHERE source = $1::text AND closed_at IS NULL AND opened_at <= $7::timestamptz
       RETURNING gap_id, opened_at),
    advanced AS (
      UPDATE inbox_cursor SET watermark = GREATEST(watermark, $8::bigint), updated_at = $2::timestamptz
       WHERE source = $1::text AND $9::boolean)
  SELECT (SELECT count(*)::int FROM copied) AS copied,
         ARRAY(SELECT gap_id::text FROM expired) AS expired_ids, ARRAY(SELECT opened_at FROM expired) AS expired_at,
         CASE WHEN $10::boolean OR EXISTS (SELECT 1 FROM copied) OR EXISTS (SELECT 1 FROM expired)
              THEN pg_notify($11, $8::bigint::text) END AS notified`;

// The book-keeping a poll starts from, one statement: the watermark (NULL before the cursor row
// exists), the lowest open gaps ($2 of them) and one page of expired gaps still watched for a late
// commit (opened after $3, above gap id $4, $5 of them).
// (Ordered by the bigint column: the text output would sort '10' before '9'.)
const READ_STATE = `SELECT c.watermark::text AS watermark,
         ARRAY(SELECT o.gap_id::text AS id FROM inbox_gap o WHERE o.source = $1 AND o.closed_at IS NULL
                ORDER BY o.gap_id LIMIT $2) AS open,
         ARRAY(SELECT w.gap_id::text AS id FROM inbox_gap w
                WHERE w.source = $1 AND w.closed_by = 'expired' AND w.appeared_at IS NULL AND w.opened_at > $3 AND w.gap_id > $4::bigint
                ORDER BY w.gap_id LIMIT $5) AS watched
    FROM (SELECT 1) AS one LEFT JOIN inbox_cursor c ON c.source = $1`;

// Prepared once per connection (node-postgres named statements): parsed and planned once.
const Q_STATE = 'msgx-ingest-state';
const Q_FAST = 'msgx-ingest-fast-poll';
const Q_POLL = 'msgx-ingest-poll';

/** Open gaps rescanned per poll (the lowest ones: those block the pump). */
const GAP_RESCAN_LIMIT = 1000;
/** Expired gaps watched per poll; successive polls page through all of them (PollState). */
export const LATE_WATCH_PAGE = 1000;
/** Expired gaps stay watched this long for a late commit, which is then still ingested. */
const LATE_WATCH_MS = 24 * 3600_000;
/**
 * A run of more missing ids than this between two visible ids is an id jump (auto-increment
 * bumped by the server), not uncommitted inserts: it is recorded as one range in inbox_id_range
 * (auditable, not watched), not as gaps.
 */
export const MAX_GAP_RUN = 10_000;

export interface PollResult {
  /** Rows read past the watermark (a full batch means: poll again at once). */
  readonly read: number;
  /** Rows newly copied (including gap rows that appeared). */
  readonly copied: number;
  readonly gapsOpened: number;
  readonly gapsAppeared: number;
  readonly gapsExpired: number;
  readonly watermark: string;
  /** More is waiting (a full batch, or the byte budget cut the poll short): poll again at once. */
  readonly more: boolean;
  /** XML bytes loaded by this poll (at most MSGX_INGEST_MAX_BYTES, or one row larger than that). */
  readonly bytes: number;
}

/**
 * The next poll's new rows, read from CMINMSGS while this poll's write commits (pipelining):
 * rows after `after`, which becomes the watermark only if that write commits. Never more than one.
 */
interface Prefetch {
  readonly after: string;
  readonly limit: number;
  readonly maxBytes: number;
  /** undefined when the read failed: the poll then reads again itself (and meets the error). */
  readonly batch: Promise<InboxBatch | undefined>;
}

/**
 * What successive polls carry over: where the late-commit watch continues; the prefetched rows;
 * and, after a one-statement poll that found no gap of any kind, the watermark it committed.
 */
export interface PollState {
  lateAfter: string;
  prefetch?: Prefetch | undefined;
  /**
   * Set only by a FAST_POLL that committed with more waiting, no open gap, no watched gap and the
   * watch at its start: the next poll then skips READ_STATE. Sound because only ingest writes inbox_gap, and a
   * poll opens gaps only while it moves the cursor — so anyone else's gap work would have moved
   * the cursor too, which FAST_POLL's compare-and-set refuses (and the poll after reads afresh).
   */
  clean?: { readonly watermark: string } | undefined;
}

export const newPollState = (): PollState => ({ lateAfter: '0' });

/**
 * A byte budget over rows chosen in order: take rows while they fit; the first row is always
 * taken, however large (a single 16 MiB message must still go through).
 */
class ByteBudget {
  spent = 0;
  cut = false;
  constructor(private readonly max: number) {}
  take(sizes: readonly InboxRowSize[]): string[] {
    const chosen = sizes.slice(0, fittingCount(sizes, this.spent, this.max));
    if (chosen.length < sizes.length) this.cut = true;
    for (const s of chosen) this.spent += s.bytes;
    return chosen.map((s) => s.id);
  }
  /** New rows read with the budget applied by the mailbox (readBatch, from `spent`). */
  took(batch: InboxBatch): void {
    this.spent += batch.bytes;
    // -1: nothing fitted after the gap rows, and the mailbox could not tell whether rows wait.
    if (batch.scanned < 0 || batch.rows.length < batch.scanned) this.cut = true;
  }
}

async function readChosen(mailbox: Mailbox, ids: readonly string[]): Promise<InboxRow[]> {
  return ids.length > 0 ? mailbox.readIds(ids) : [];
}

/** A prefetched batch is used only when it is as good as a fresh read would be: a full window, or cut by the budget. */
const isFull = (b: InboxBatch, limit: number): boolean => b.scanned >= limit || b.rows.length < b.scanned;

/**
 * The new rows of this poll: the prefetched batch when it was read after this very watermark with
 * the same limits and nothing of the budget is spent yet; otherwise one readBatch now.
 */
async function newRows(mailbox: Mailbox, prefetch: Prefetch | undefined, watermark: string, limit: number, maxBytes: number, spent: number): Promise<InboxBatch> {
  if (prefetch && prefetch.after === watermark && prefetch.limit === limit && prefetch.maxBytes === maxBytes && spent === 0) {
    const b = await prefetch.batch;
    if (b && isFull(b, limit)) return b;
  }
  return mailbox.readBatch(watermark, limit, maxBytes, spent);
}

/** Ids one after another from the watermark (on a fresh cursor, from the first row): no gap to record. */
function contiguous(watermark: string, rows: readonly InboxRow[]): boolean {
  if (rows.length === 0) return true;
  let prev = watermark === '0' ? BigInt(rows[0]!.id) - 1n : BigInt(watermark);
  for (const r of rows) {
    const id = BigInt(r.id);
    if (id !== prev + 1n) return false;
    prev = id;
  }
  return true;
}

/** The cursor is not where this poll read it (a second ingest?): nothing is written, and the poll says so. */
function movedUnder(log: Logger, read: string, locked: string): PollResult {
  log.warn({ read, now: locked }, 'ingest cursor moved under this poll (a second ingest?); skipping');
  return { read: 0, copied: 0, gapsOpened: 0, gapsAppeared: 0, gapsExpired: 0, watermark: locked, more: false, bytes: 0 };
}

/**
 * One ingest poll: rows after the watermark, plus a rescan of open (and recently expired) gaps by
 * id, copied into inbox_message + proc_state(PENDING) with the cursor, the gap book-keeping and a
 * `GapExpired` decision per expired gap — ONE transaction, NOTIFY msgx_inbox on commit.
 *
 * The common poll (no open gap, no late row, new ids contiguous) is one autocommit statement
 * (FAST_POLL). After a full batch the next batch is read from CMINMSGS while this one commits
 * (PollState.prefetch): a crash or a failed commit only discards it (its rows stay after the
 * committed watermark and are read again), so nothing is lost or copied twice; at most two polls'
 * XML (2 × MSGX_INGEST_MAX_BYTES) is held at once.
 */
export async function pollOnce(rt: Runtime, log: Logger, state: PollState = newPollState()): Promise<PollResult> {
  const { pool, mailbox, cfg, clock, faults } = rt;
  const now = clock.now();
  const prefetch = state.prefetch;
  state.prefetch = undefined;
  const clean = state.clean;
  state.clean = undefined;
  const book = clean
    ? { watermark: clean.watermark, open: [] as string[], watched: [] as string[] }
    : (
        await pool.query<{ watermark: string | null; open: string[]; watched: string[] }>({
          name: Q_STATE,
          text: READ_STATE,
          values: [INBOX_SOURCE, GAP_RESCAN_LIMIT, new Date(now.getTime() - LATE_WATCH_MS), state.lateAfter, LATE_WATCH_PAGE],
        })
      ).rows[0]!;
  const watermark = book.watermark ?? (await readWatermark(pool, INBOX_SOURCE));
  const open = book.open;
  const watched = book.watched;
  // Gap rows first (they block the pump), then late rows — sizes first, XML only for what fits the
  // budget — then new rows as a prefix by id (the watermark moves to the last one read).
  const budget = new ByteBudget(cfg.ingestMaxBytes);
  const appeared = open.length > 0 ? await readChosen(mailbox, budget.take(await mailbox.sizesOf(open))) : [];
  const lateSizes = watched.length > 0 ? await mailbox.sizesOf(watched) : [];
  const lateIds = budget.take(lateSizes);
  const late = await readChosen(mailbox, lateIds);
  // Next poll: the page after this one (or after the last row that fitted); from the start when done.
  const lateCut = lateIds.length < lateSizes.length;
  const nextLateAfter = lateCut ? (lateIds.at(-1) ?? state.lateAfter) : watched.length < LATE_WATCH_PAGE ? '0' : watched.at(-1)!;
  const batch = await newRows(mailbox, prefetch, watermark, cfg.ingestBatch, cfg.ingestMaxBytes, budget.spent);
  budget.took(batch);
  const rows = batch.rows;
  const more = budget.cut || batch.scanned >= cfg.ingestBatch;
  const top = rows.length > 0 ? rows[rows.length - 1]!.id : watermark;
  const done = (copied: number, gapsOpened = 0, gapsExpired = 0): PollResult => ({
    read: rows.length,
    copied,
    gapsOpened,
    gapsAppeared: appeared.length,
    gapsExpired,
    watermark: top,
    more,
    bytes: budget.spent,
  });
  // The next batch, read while this one is written (only when more is waiting: an idle poll
  // reads afresh on its schedule).
  if (more && rows.length > 0) {
    const after = top;
    const read = mailbox.readBatch(after, cfg.ingestBatch, cfg.ingestMaxBytes, 0).catch(() => undefined);
    state.prefetch = { after, limit: cfg.ingestBatch, maxBytes: cfg.ingestMaxBytes, batch: read };
  }

  let result: PollResult | undefined;
  if (open.length === 0 && late.length === 0 && contiguous(watermark, rows)) {
    // Nothing to expire, no gap to record or close: the copy and the cursor, or nothing at all.
    if (rows.length === 0) {
      state.lateAfter = nextLateAfter;
      return done(0);
    }
    // The rows are read, nothing is in PostgreSQL yet (a crash here loses and duplicates nothing).
    faults.reached('ingest.uncommitted');
    const r = await fastPoll(pool, [...copyValues(INBOX_SOURCE, rows, now), watermark, top, Channels.inbox]);
    if (r !== undefined) {
      if (!r.locked) return movedUnder(log, watermark, await readWatermark(pool, INBOX_SOURCE));
      result = done(r.copied);
      // Back to back through a backlog only: an idle poll always reads the cursor (a hand-rewound one is seen at once).
      if (more && watched.length === 0 && state.lateAfter === '0') state.clean = { watermark: top };
    }
  }
  if (result === undefined) {
    // BEGIN with the cursor lock; the gap book-keeping; one statement that copies the rows,
    // expires old gaps and advances the cursor (and NOTIFYs); the GapExpired decisions; COMMIT.
    result = await withOpenedTransaction(pool, [lockWatermarkSql(INBOX_SOURCE)], async (c, opened) => {
      const locked = String(opened[0]![0]!.watermark);
      if (locked !== watermark) return movedUnder(log, watermark, locked);
      const gapsOpened = await recordNewGaps(c, watermark, rows, now, log);
      await markAppeared(c, INBOX_SOURCE, [...appeared, ...late].map((r) => r.id), now);
      if (late.length > 0) log.warn({ count: late.length, ids: late.slice(0, 20).map((r) => r.id) }, 'rows appeared after their gap expired; ingested out of order');
      const toCopy = [...appeared, ...late, ...rows];
      const { rows: [d] } = await c.query<{ copied: number; expired_ids: string[]; expired_at: Date[] }>({
        name: Q_POLL,
        text: POLL,
        values: [
          ...copyValues(INBOX_SOURCE, toCopy, now),
          new Date(now.getTime() - cfg.gapTimeoutMs),
          top,
          rows.length > 0,
          appeared.length > 0,
          Channels.inbox,
        ],
      });
      const expired = expiredGaps(d!.expired_ids, d!.expired_at);
      if (expired.length > 0) await recordExpiry(c, expired, cfg.gapTimeoutMs, now, log);
      if (d!.copied > 0) faults.reached('ingest.uncommitted');
      return done(d!.copied, gapsOpened, expired.length);
    });
  }
  state.lateAfter = nextLateAfter;
  if (result.copied > 0) faults.reached('ingest.committed');
  return result;
}

/**
 * FAST_POLL, or undefined when a row it copies is in inbox_message already (SQLSTATE 23505: the
 * statement changed nothing). Rows above the watermark are new — every copy moves the watermark
 * past its new rows in the same transaction — unless someone rewound the cursor by hand: then the
 * poll takes the transaction path, whose copy skips what is there (ON CONFLICT DO NOTHING). The
 * fast path has no ON CONFLICT: the speculative insertion cost about a quarter of its
 * PostgreSQL CPU.
 */
async function fastPoll(pool: Runtime['pool'], values: unknown[]): Promise<{ locked: boolean; copied: number } | undefined> {
  try {
    return (await pool.query<{ locked: boolean; copied: number }>({ name: Q_FAST, text: FAST_POLL, values })).rows[0]!;
  } catch (err) {
    if (sqlState(err) === SqlState.uniqueViolation) return undefined;
    throw err;
  }
}

/**
 * Ids missing between the watermark and the rows just read. On a fresh cursor (watermark 0) ids
 * below the first visible row are history, not gaps.
 */
async function recordNewGaps(c: PoolClient, watermark: string, rows: readonly InboxRow[], now: Date, log: Logger): Promise<number> {
  let opened = 0;
  let prev = watermark === '0' && rows.length > 0 ? BigInt(rows[0]!.id) : BigInt(watermark);
  const visible = rows.map((r) => r.id);
  for (const r of rows) {
    const id = BigInt(r.id);
    const missing = id - prev - 1n;
    if (missing > BigInt(MAX_GAP_RUN)) {
      await recordIdRange(c, INBOX_SOURCE, String(prev), r.id, now);
      log.warn({ after: String(prev), next: r.id, missing: String(missing) }, 'CMINMSGS id jump: recorded as one range in inbox_id_range, not as gaps');
    } else if (missing > 0n) {
      opened += await recordGaps(c, INBOX_SOURCE, String(prev), r.id, visible, now);
    }
    if (id > prev) prev = id;
  }
  return opened;
}

async function recordExpiry(c: PoolClient, expired: readonly OpenGap[], timeoutMs: number, now: Date, log: Logger): Promise<void> {
  const last = await lockPipeline(c);
  await appendDecisions(
    c,
    last,
    expired.map((g): NewDecisionOf<'GapExpired'> => ({
      msgId: g.gapId,
      kind: 'GapExpired',
      payload: { source: INBOX_SOURCE, gapId: g.gapId, openedAt: g.openedAt.toISOString(), timeoutMs },
    })),
    now,
  );
  log.warn({ gaps: expired.map((g) => g.gapId) }, 'ingest gaps expired: the pump moves past them');
}
