/**
 * msg_event inserts: one statement for all rows of a batch; a row that already exists for its
 * (source_position, target, seq) is left as it is, so feeding the same positions twice adds nothing.
 */
import type { Queryable } from '../platform/db.ts';
import type { OutboxRow, OutboxTarget } from './decisionOutbox.ts';
import { columnArrays, unnestOf, type ColumnSpec } from '../platform/sqlBatch.ts';
import { Channels, notify } from '../platform/channels.ts';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'target', type: 'text' },
  { name: 'source_position', type: 'bigint' },
  { name: 'seq', type: 'integer' },
  { name: 'msg_id', type: 'bigint' },
  { name: 'flid', type: 'text' },
  { name: 'payload', type: 'jsonb' },
  { name: 'headers', type: 'jsonb' },
];

/** Insert rows (in the given order, so event_id follows log order); returns how many were new per target. */
export async function insertOutboxRows(q: Queryable, rows: readonly OutboxRow[], createdAt: Date): Promise<Map<OutboxTarget, number>> {
  const added = new Map<OutboxTarget, number>();
  if (rows.length === 0) return added;
  const cells = rows.map((r) => [
    r.target, r.sourcePosition, r.seq, r.msgId, r.flid, JSON.stringify(r.payload), JSON.stringify(r.headers),
  ]);
  const res = await q.query<{ target: OutboxTarget; n: number }>(
    `WITH ins AS (
       INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, headers, created_at)
       SELECT v.target, v.source_position, v.seq, v.msg_id, v.flid, v.payload, v.headers, $8
         FROM ${unnestOf(COLUMNS)} WITH ORDINALITY AS v(target, source_position, seq, msg_id, flid, payload, headers, ord)
        ORDER BY v.ord
       ON CONFLICT (source_position, target, seq) DO NOTHING
       RETURNING target)
     SELECT target, count(*)::int AS n FROM ins GROUP BY target`,
    [...columnArrays(cells, COLUMNS), createdAt],
  );
  for (const r of res.rows) added.set(r.target, r.n);
  return added;
}

/** Wake the dispatcher of each target that got rows (delivered when the transaction commits). */
export async function notifyOutbox(q: Queryable, targets: Iterable<OutboxTarget>): Promise<void> {
  for (const t of targets) await notify(q, Channels.outbox, t);
}
