import { withOpenedTransaction, type PoolClient } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { InboxRow, InboxRowSize, Mailbox } from '../../platform/mailbox/port.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { appendDecisions, lockPipeline, type NewDecisionOf } from '../../log/appendDecisions.ts';
import { INBOX_SOURCE } from '../pump/findHeads.ts';
import { COPY_CTES, copyValues, lockWatermarkSql, readWatermark } from './copyInbox.ts';
import { expiredGaps, expiredUnseenGaps, markAppeared, openGaps, recordGaps, recordIdRange, type OpenGap } from './gaps.ts';
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
  SELECT ARRAY(SELECT msg_id::text FROM copied) AS copied,
         ARRAY(SELECT gap_id::text FROM expired) AS expired_ids, ARRAY(SELECT opened_at FROM expired) AS expired_at,
         CASE WHEN $10::boolean OR EXISTS (SELECT 1 FROM copied) OR EXISTS (SELECT 1 FROM expired)
              THEN pg_notify($11, $8::bigint::text) END AS notified`;

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

/** What successive polls carry over: where the late-commit watch continues. */
export interface PollState {
  lateAfter: string;
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
    const ids: string[] = [];
    for (const s of sizes) {
      if (this.spent > 0 && this.spent + s.bytes > this.max) {
        this.cut = true;
        break;
      }
      ids.push(s.id);
      this.spent += s.bytes;
    }
    return ids;
  }
}

async function readChosen(mailbox: Mailbox, ids: readonly string[]): Promise<InboxRow[]> {
  return ids.length > 0 ? mailbox.readIds(ids) : [];
}

/**
 * One ingest poll: rows after the watermark, plus a rescan of open (and recently expired) gaps by
 * id, copied into inbox_message + proc_state(PENDING) with the cursor, the gap book-keeping and a
 * `GapExpired` decision per expired gap — ONE transaction, NOTIFY msgx_inbox on commit.
 */
export async function pollOnce(rt: Runtime, log: Logger, state: PollState = newPollState()): Promise<PollResult> {
  const { pool, mailbox, cfg, clock, faults } = rt;
  const now = clock.now();
  // Three independent reads of the book-keeping, side by side (one round trip of waiting).
  const [watermark, open, watched] = await Promise.all([
    readWatermark(pool, INBOX_SOURCE),
    openGaps(pool, INBOX_SOURCE, GAP_RESCAN_LIMIT),
    expiredUnseenGaps(pool, INBOX_SOURCE, new Date(now.getTime() - LATE_WATCH_MS), state.lateAfter, LATE_WATCH_PAGE),
  ]);
  // Sizes first, XML only for what fits the budget: gap rows (they block the pump), late rows,
  // then new rows as a prefix by id (the watermark moves to the last one read).
  const budget = new ByteBudget(cfg.ingestMaxBytes);
  const appeared = await readChosen(mailbox, budget.take(await mailbox.sizesOf(open.map((g) => g.gapId))));
  const lateSizes = await mailbox.sizesOf(watched);
  const lateIds = budget.take(lateSizes);
  const late = await readChosen(mailbox, lateIds);
  // Next poll: the page after this one (or after the last row that fitted); from the start when done.
  const lateCut = lateIds.length < lateSizes.length;
  const nextLateAfter = lateCut ? (lateIds.at(-1) ?? state.lateAfter) : watched.length < LATE_WATCH_PAGE ? '0' : watched.at(-1)!;
  const newSizes = await mailbox.sizesAfter(watermark, cfg.ingestBatch);
  const rows = await readChosen(mailbox, budget.take(newSizes));

  // BEGIN with the cursor lock; the gap book-keeping of gap rows (rare); one statement that copies
  // the rows, expires old gaps and advances the cursor (and NOTIFYs); COMMIT.
  const result = await withOpenedTransaction(pool, [lockWatermarkSql(INBOX_SOURCE)], async (c, opened) => {
    const locked = String(opened[0]![0]!.watermark);
    if (locked !== watermark) {
      log.warn({ read: watermark, now: locked }, 'ingest cursor moved under this poll (a second ingest?); skipping');
      return { read: 0, copied: 0, gapsOpened: 0, gapsAppeared: 0, gapsExpired: 0, watermark: locked, more: false, bytes: 0 };
    }
    const gapsOpened = await recordNewGaps(c, watermark, rows, now, log);
    await markAppeared(c, INBOX_SOURCE, [...appeared, ...late].map((r) => r.id), now);
    if (late.length > 0) log.warn({ count: late.length, ids: late.slice(0, 20).map((r) => r.id) }, 'rows appeared after their gap expired; ingested out of order');
    const top = rows.length > 0 ? rows[rows.length - 1]!.id : watermark;
    const toCopy = [...appeared, ...late, ...rows];
    const { rows: [done] } = await c.query<{ copied: string[]; expired_ids: string[]; expired_at: Date[] }>(POLL, [
      ...copyValues(INBOX_SOURCE, toCopy, now),
      new Date(now.getTime() - cfg.gapTimeoutMs),
      top,
      rows.length > 0,
      appeared.length > 0,
      Channels.inbox,
    ]);
    const copied = done!.copied;
    const expired = expiredGaps(done!.expired_ids, done!.expired_at);
    if (expired.length > 0) await recordExpiry(c, expired, cfg.gapTimeoutMs, now, log);
    if (copied.length > 0) faults.reached('ingest.uncommitted');
    return {
      read: rows.length,
      copied: copied.length,
      gapsOpened,
      gapsAppeared: appeared.length,
      gapsExpired: expired.length,
      watermark: top,
      more: budget.cut || newSizes.length >= cfg.ingestBatch,
      bytes: budget.spent,
    };
  });
  state.lateAfter = nextLateAfter;
  if (result.copied > 0) faults.reached('ingest.committed');
  return result;
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
