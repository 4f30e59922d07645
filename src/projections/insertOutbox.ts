/**
 * msg_event inserts: one statement per chunk of rows; a row that already exists for its
 * (source_position, target, seq) is left as it is, so feeding the same positions twice adds nothing.
 *
 * Bounded (docs/projections.md "Big decisions"): a statement carries at most OUTBOX_CHUNK_ROWS rows
 * and about OUTBOX_CHUNK_BYTES of JSON, always 8 bind parameters (one array per column, sqlBatch.ts),
 * so a plan snapshot of 150k flights (~450k rows) is ~230 statements of bounded size, not one of
 * hundreds of MB. A chunk is built while the one before it runs (the connection runs them in
 * order), so the feeder holds at most two chunks of serialised rows.
 */
import type { Queryable } from '../platform/db.ts';
import type { OutboxRow, OutboxTarget } from './decisionOutbox.ts';
import { columnArrays, unnestOf, type CellValue, type ColumnSpec } from '../platform/sqlBatch.ts';
import { Channels, notify } from '../platform/channels.ts';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'target', type: 'text' },
  { name: 'source_position', type: 'bigint' },
  { name: 'seq', type: 'integer' },
  { name: 'msg_id', type: 'bigint' },
  { name: 'flid', type: 'text' },
  { name: 'payload', type: 'json' },
  { name: 'headers', type: 'jsonb' },
];

/** Rows per msg_event INSERT statement, at most. */
export const OUTBOX_CHUNK_ROWS = 2000;
/** Serialised JSON per statement: a chunk is sent once it reaches this many characters. */
export const OUTBOX_CHUNK_BYTES = 4 * 1024 * 1024;

/** Adds rows in chunks (OUTBOX_CHUNK_ROWS / OUTBOX_CHUNK_BYTES), in order; `finish` sends the rest and returns how many were new per target. */
export interface OutboxInserter {
  add(row: OutboxRow): Promise<void>;
  finish(): Promise<Map<OutboxTarget, number>>;
}

export function outboxInserter(q: Queryable, createdAt: Date): OutboxInserter {
  const added = new Map<OutboxTarget, number>();
  let cells: CellValue[][] = [];
  let chars = 0;
  /** The statement of the chunk sent last; its failure is thrown by the next flush or by finish. */
  let running: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    if (cells.length === 0) return;
    const chunk = cells;
    cells = [];
    chars = 0;
    await running; // one statement at a time; the chunk after it is built meanwhile
    running = insertCells(q, chunk, createdAt).then((counts) => {
      for (const [target, n] of counts) added.set(target, (added.get(target) ?? 0) + n);
    });
    running.catch(() => undefined); // awaited by the next flush or by finish; no unhandled rejection meanwhile
  };
  return {
    async add(r) {
      const payload = JSON.stringify(r.payload);
      const headers = JSON.stringify(r.headers);
      cells.push([r.target, r.sourcePosition, r.seq, r.msgId, r.flid, payload, headers]);
      chars += payload.length + headers.length;
      if (cells.length >= OUTBOX_CHUNK_ROWS || chars >= OUTBOX_CHUNK_BYTES) await flush();
    },
    async finish() {
      await flush();
      await running;
      return added;
    },
  };
}

/** Insert rows (in the given order, so event_id follows log order); returns how many were new per target. */
export async function insertOutboxRows(q: Queryable, rows: readonly OutboxRow[], createdAt: Date): Promise<Map<OutboxTarget, number>> {
  const inserter = outboxInserter(q, createdAt);
  for (const r of rows) await inserter.add(r);
  return inserter.finish();
}

/** One INSERT of already serialised rows; how many were new per target. */
async function insertCells(q: Queryable, cells: readonly (readonly CellValue[])[], createdAt: Date): Promise<Map<OutboxTarget, number>> {
  const added = new Map<OutboxTarget, number>();
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
