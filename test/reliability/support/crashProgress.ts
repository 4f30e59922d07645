/** Where a crash-matrix database stands: one query over every stage of the write side. */
import type { Queryable } from '../../../src/platform/db.ts';

export interface Progress {
  /** inbox_message rows (messages ingested). */
  readonly ingested: number;
  /** proc_state rows still PENDING or FAILED. */
  readonly unfinished: number;
  /** decision_event rows. */
  readonly decisions: number;
  /** pipeline_lock.last_position. */
  readonly head: number;
  /** projection_checkpoint positions. */
  readonly flights: number;
  readonly outbox: number;
  /** msg_event rows SENT / not SENT (PENDING) / DEAD. */
  readonly sent: number;
  readonly unsent: number;
  readonly deadDeliveries: number;
  /** proc_state rows whose CMINMSGS write-back is DONE / PENDING. */
  readonly backfilled: number;
  readonly backfillPending: number;
}

/** Stages a random kill can wait for (a count that grows as that stage works). */
export const STAGES = ['ingested', 'decisions', 'flights', 'outbox', 'sent', 'backfilled'] as const;
export type Stage = (typeof STAGES)[number];

export async function readProgress(q: Queryable): Promise<Progress> {
  const { rows } = await q.query<Record<keyof Progress, string>>(
    `SELECT (SELECT count(*) FROM inbox_message) AS ingested,
            (SELECT count(*) FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS unfinished,
            (SELECT count(*) FROM decision_event) AS decisions,
            (SELECT last_position FROM pipeline_lock WHERE id = 1) AS head,
            COALESCE((SELECT position FROM projection_checkpoint WHERE name = 'flights'), 0) AS flights,
            COALESCE((SELECT position FROM projection_checkpoint WHERE name = 'outbox'), 0) AS outbox,
            (SELECT count(*) FROM msg_event WHERE state = 'SENT') AS sent,
            (SELECT count(*) FROM msg_event WHERE state = 'PENDING') AS unsent,
            (SELECT count(*) FROM msg_event WHERE state = 'DEAD') AS "deadDeliveries",
            (SELECT count(*) FROM proc_state WHERE backfill_state = 'DONE') AS backfilled,
            (SELECT count(*) FROM proc_state WHERE backfill_state = 'PENDING') AS "backfillPending"`,
  );
  const r = rows[0]!;
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])) as unknown as Progress;
}

/** Messages that reached a terminal state. */
export const terminal = (p: Progress): number => p.ingested - p.unfinished;

/** Everything released so far went all the way: decided, projected, delivered, written back. */
export function isIdle(p: Progress, released: number): boolean {
  return (
    p.ingested === released && p.unfinished === 0 && p.backfillPending === 0 &&
    p.flights === p.head && p.outbox === p.head && p.unsent === 0
  );
}
