import type pg from 'pg';
import type { Clock } from '../platform/clock.ts';
import { withTransaction } from '../platform/db.ts';
import { appendDecisions, lockPipeline, type NewDecisionOf } from '../log/appendDecisions.ts';
import { Channels, notify } from '../platform/channels.ts';

import type { ReplayClass } from '../domain/contract.ts';

export interface ReplayFilter {
  readonly errorClass: ReplayClass;
  /** Only these message ids. */
  readonly ids?: readonly string[];
  /** Only messages whose first failure is at or after this instant. */
  readonly since?: Date;
  /** Who asked (recorded in the decision). */
  readonly requestedBy?: string;
}

export interface Replayed {
  readonly msgId: string;
  readonly fromState: 'FAILED' | 'DEAD' | 'PARKED';
  readonly errorClass: string;
  readonly causeClass: string | null;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly position: string;
}

/**
 * Operator replay (docs/contract/design.md §6): PARKED/FAILED/DEAD messages of one class go back to PENDING with
 * their attempts, first failure and next attempt reset; MALFORMED is never touched. `--class X`
 * matches PARKED and FAILED rows of class X and, for CODEC_ERROR/UNSUPPORTED/INFRA, DEAD(EXHAUSTED)
 * rows whose cause was X; `EXHAUSTED` matches every DEAD(EXHAUSTED). The pump decides them again
 * before anything newer (they have the smallest ids), against the flights as they are now: what a
 * later message already set is not overwritten (`Skipped` `stale`, see domain/stale.ts). One transaction under the pipeline lock, one
 * `ReplayRequested` decision per message — safe while the pump runs (it re-reads after the append).
 */
export async function replay(pool: pg.Pool, clock: Clock, filter: ReplayFilter): Promise<Replayed[]> {
  const now = clock.now();
  return withTransaction(pool, async (c) => {
    const last = await lockPipeline(c);
    const { rows } = await c.query<{
      msg_id: string;
      state: 'FAILED' | 'DEAD' | 'PARKED';
      error_class: string;
      cause_class: string | null;
      attempts: number;
      last_error: string | null;
    }>(
      `SELECT msg_id, state, error_class, cause_class, attempts, last_error
         FROM proc_state
        WHERE error_class IS DISTINCT FROM 'MALFORMED'
          AND (($1 = 'EXHAUSTED' AND state = 'DEAD' AND error_class = 'EXHAUSTED')
               OR ($1 <> 'EXHAUSTED' AND ((state IN ('FAILED', 'PARKED') AND error_class = $1)
                                       OR (state = 'DEAD' AND error_class = 'EXHAUSTED' AND cause_class = $1))))
          AND ($2::bigint[] IS NULL OR msg_id = ANY($2::bigint[]))
          AND ($3::timestamptz IS NULL OR first_failure_at >= $3)
        ORDER BY msg_id
        FOR UPDATE`,
      [filter.errorClass, filter.ids ?? null, filter.since ?? null],
    );
    if (rows.length === 0) return [];
    const positions = await appendDecisions(
      c,
      last,
      rows.map((r): NewDecisionOf<'ReplayRequested'> => ({
        msgId: r.msg_id,
        kind: 'ReplayRequested',
        payload: {
          fromState: r.state,
          errorClass: r.error_class,
          ...(r.cause_class ? { causeClass: r.cause_class } : {}),
          attempts: r.attempts,
          lastError: r.last_error,
          filter: {
            class: filter.errorClass,
            ...(filter.ids ? { ids: filter.ids } : {}),
            ...(filter.since ? { since: filter.since.toISOString() } : {}),
          },
          ...(filter.requestedBy ? { requestedBy: filter.requestedBy } : {}),
        },
      })),
      now,
    );
    await c.query(
      `UPDATE proc_state SET state = 'PENDING', attempts = 0, first_failure_at = NULL, next_attempt_at = NULL,
              error_class = NULL, cause_class = NULL, decided_position = NULL, updated_at = $2
        WHERE msg_id = ANY($1::bigint[])`,
      [rows.map((r) => r.msg_id), now],
    );
    await notify(c, Channels.inbox, 'replay');
    return rows.map((r, i) => ({
      msgId: r.msg_id,
      fromState: r.state,
      errorClass: r.error_class,
      causeClass: r.cause_class,
      attempts: r.attempts,
      lastError: r.last_error,
      position: positions[i]!,
    }));
  });
}
