import { crashPoint } from '../../platform/crashPoint.ts';
import { withTransaction, type PoolClient } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { InboxRow } from '../../platform/mailbox/port.ts';
import type { Runtime } from '../../platform/runtime.ts';
import { appendDecisions, lockPipeline } from '../../log/appendDecisions.ts';
import { INBOX_SOURCE } from '../pump/findHeads.ts';
import { advanceWatermark, copyInbox, lockWatermark, readWatermark } from './copyInbox.ts';
import { expireGaps, expiredUnseenGaps, markAppeared, openGaps, recordGaps, type OpenGap } from './gaps.ts';

/** Open gaps rescanned per poll (the lowest ones: those block the pump). */
const GAP_RESCAN_LIMIT = 1000;
/** Expired gaps stay watched this long for a late commit, which is then still ingested. */
const LATE_WATCH_MS = 24 * 3600_000;
/**
 * A run of more missing ids than this between two visible ids is an id jump (auto-increment
 * bumped by the server), not uncommitted inserts: it is logged, not recorded as gaps.
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
}

/**
 * One ingest poll: rows after the watermark, plus a rescan of open (and recently expired) gaps by
 * id, copied into inbox_message + proc_state(PENDING) with the cursor, the gap book-keeping and a
 * `GapExpired` decision per expired gap — ONE transaction, NOTIFY msgx_inbox on commit.
 */
export async function pollOnce(rt: Runtime, log: Logger): Promise<PollResult> {
  const { pool, mailbox, cfg, clock } = rt;
  const now = clock.now();
  const watermark = await readWatermark(pool, INBOX_SOURCE);
  const rows = await mailbox.readAfter(watermark, cfg.ingestBatch);
  const open = await openGaps(pool, INBOX_SOURCE, GAP_RESCAN_LIMIT);
  const appeared = open.length > 0 ? await mailbox.readIds(open.map((g) => g.gapId)) : [];
  const watched = await expiredUnseenGaps(pool, INBOX_SOURCE, new Date(now.getTime() - LATE_WATCH_MS), GAP_RESCAN_LIMIT);
  const late = watched.length > 0 ? await mailbox.readIds(watched) : [];

  const result = await withTransaction(pool, async (c) => {
    const locked = await lockWatermark(c, INBOX_SOURCE);
    if (locked !== watermark) {
      log.warn({ read: watermark, now: locked }, 'ingest cursor moved under this poll (a second ingest?); skipping');
      return { read: 0, copied: 0, gapsOpened: 0, gapsAppeared: 0, gapsExpired: 0, watermark: locked };
    }
    const copied = await copyInbox(c, INBOX_SOURCE, [...appeared, ...late, ...rows], now);
    const gapsOpened = await recordNewGaps(c, watermark, rows, now, log);
    await markAppeared(c, INBOX_SOURCE, [...appeared, ...late].map((r) => r.id), now);
    if (late.length > 0) log.warn({ ids: late.map((r) => r.id) }, 'rows appeared after their gap expired; ingested out of order');
    const expired = await expireGaps(c, INBOX_SOURCE, new Date(now.getTime() - cfg.gapTimeoutMs), now);
    if (expired.length > 0) await recordExpiry(c, expired, cfg.gapTimeoutMs, now, log);
    const top = rows.length > 0 ? rows[rows.length - 1]!.id : watermark;
    if (rows.length > 0) await advanceWatermark(c, INBOX_SOURCE, top, now);
    if (copied.length > 0 || appeared.length > 0 || expired.length > 0) {
      await c.query("SELECT pg_notify('msgx_inbox', $1)", [top]);
    }
    if (copied.length > 0) crashPoint('ingest.uncommitted');
    return { read: rows.length, copied: copied.length, gapsOpened, gapsAppeared: appeared.length, gapsExpired: expired.length, watermark: top };
  });
  if (result.copied > 0) crashPoint('ingest.committed');
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
      log.warn({ after: String(prev), next: r.id, missing: String(missing) }, 'CMINMSGS id jump: not recorded as gaps');
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
    expired.map((g) => ({
      msgId: g.gapId,
      kind: 'GapExpired' as const,
      payload: { source: INBOX_SOURCE, gapId: g.gapId, openedAt: g.openedAt.toISOString(), timeoutMs },
    })),
    now,
  );
  log.warn({ gaps: expired.map((g) => g.gapId) }, 'ingest gaps expired: the pump moves past them');
}
