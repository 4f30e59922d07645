import type pg from 'pg';
import { RefusedError } from '../../platform/errors.ts';
import { withTransaction, type PoolClient } from '../../platform/db.ts';
import { runModeOf, type RunMode, type RunModeRow } from '../../platform/runMode.ts';
import { appendDecisions, lockPipeline } from '../../log/appendDecisions.ts';
import { INBOX_SOURCE } from '../pump/findHeads.ts';

/** `msgx start --shadow` cannot run against this database; the message says why and what to do. */
export class ShadowRefused extends RefusedError {
}

export interface CutOver {
  readonly mode: RunMode;
  /** Messages ingested in shadow and not decided yet: they will be written back (decided in production). */
  readonly undecided: number;
}

async function lockMode(c: PoolClient): Promise<RunMode> {
  const { rows } = await c.query<RunModeRow>(
    'SELECT shadow, topic_prefix, shadow_since, cutover_at, cutover_position::text, cutover_watermark::text FROM run_mode WHERE id = 1 FOR UPDATE',
  );
  if (!rows[0]) throw new Error('run_mode row 1 is missing: the schema is not migrated');
  return runModeOf(rows[0]);
}

/**
 * A writer starts in shadow mode: record it (with an audited `ShadowStarted` decision) or confirm
 * that the database already runs as shadow with the same topic prefix. Refused with a reason for a
 * database that already acted as production (decisions written back, a cut-over done): a shadow
 * needs a database of its own, or it would mix what the legacy system decided with ours.
 */
export async function enterShadow(pool: pg.Pool, opts: { topicPrefix: string; now: Date; requestedBy: string }): Promise<RunMode> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const mode = await lockMode(c);
    if (mode.shadow) {
      if (mode.topicPrefix !== opts.topicPrefix) {
        throw new ShadowRefused(
          `this database's shadow run writes its Kafka records to topics prefixed '${mode.topicPrefix}'; ` +
            `MSGX_SHADOW_TOPIC_PREFIX='${opts.topicPrefix}' would split them — set it back to '${mode.topicPrefix}'`,
        );
      }
      return mode;
    }
    if (mode.cutoverAt !== null) {
      throw new ShadowRefused(
        `this database was cut over to production at ${mode.cutoverAt.toISOString()}; it cannot go back to shadow ` +
          '(the legacy system no longer owns CMINMSGS). Run a new shadow on a database of its own',
      );
    }
    if (last !== '0') {
      throw new ShadowRefused(
        `this database already acted as the production msgx (${last} decisions, written back to CMINMSGS); ` +
          'a shadow run needs a database of its own (MSGX_DATABASE_URL)',
      );
    }
    await c.query(
      'UPDATE run_mode SET shadow = true, topic_prefix = $1, shadow_since = $2, updated_at = $2 WHERE id = 1',
      [opts.topicPrefix, opts.now],
    );
    await appendDecisions(c, last, [{ msgId: null, kind: 'ShadowStarted', payload: { topicPrefix: opts.topicPrefix, requestedBy: opts.requestedBy } }], opts.now);
    return await lockMode(c);
  });
}

/**
 * A writer starts without --shadow on a shadow database: the cut-over. In one transaction under
 * the pipeline lock: the shadow's last decision becomes `cutover_position` (nothing up to it is ever
 * written back or sent to production topics), the watermark is noted (ingest carries on from it),
 * and a `CutOver` decision is appended. Returns null when the database is not in shadow.
 */
export async function cutOver(pool: pg.Pool, opts: { now: Date; requestedBy: string }): Promise<CutOver | null> {
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const mode = await lockMode(c);
    if (!mode.shadow) return null;
    const { rows } = await c.query<{ watermark: string | null; undecided: number }>(
      `SELECT (SELECT watermark::text FROM inbox_cursor WHERE source = $1) AS watermark,
              (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS undecided`,
      [INBOX_SOURCE],
    );
    const watermark = rows[0]?.watermark ?? '0';
    await c.query(
      `UPDATE run_mode SET shadow = false, cutover_at = $1, cutover_position = $2::bigint, cutover_watermark = $3::bigint, updated_at = $1
        WHERE id = 1`,
      [opts.now, last, watermark],
    );
    await appendDecisions(
      c,
      last,
      [{
        msgId: null,
        kind: 'CutOver',
        payload: {
          cutoverPosition: last,
          watermark,
          undecided: rows[0]?.undecided ?? 0,
          shadowSince: mode.shadowSince?.toISOString() ?? null,
          topicPrefix: mode.topicPrefix,
          requestedBy: opts.requestedBy,
        },
      }],
      opts.now,
    );
    return { mode: await lockMode(c), undecided: rows[0]?.undecided ?? 0 };
  });
}
