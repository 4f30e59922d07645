/**
 * A start's first decision, as the operator sees it: an ESTT FLOP waiting in CMINMSGS for a flight
 * the write model holds, and when its decision was made (the decision's `recorded_at`: the pump's
 * clock when it decided the group, after any wait for the flight's snapshot day).
 */
import type pg from 'pg';
import { waitUntil } from './waitUntil.ts';

/** An ESTT FLOP for flight `flid` of operation day `day` (a sequence number of its own). */
export function estt(flid: string, day: string, seqn: number): string {
  const [y, m, d] = day.split('-');
  const mon = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'][Number(m) - 1];
  return `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${y}${m}${d}120000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
    `<FLOP><FLID>${flid}</FLID><ESTT>${d}${mon}${y!.slice(2)}${String(10 + (seqn % 10)).padStart(2, '0')}${String(seqn % 60).padStart(2, '0')}</ESTT></FLOP></MSG>`;
}

/** When the decision of message `msgId` was made (ms since the epoch), waiting for it. */
export async function decidedAt(pool: pg.Pool, msgId: string, timeoutMs: number): Promise<number> {
  let at = 0;
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ at: Date }>('SELECT recorded_at AS at FROM decision_event WHERE msg_id = $1::bigint ORDER BY position LIMIT 1', [msgId]);
      at = rows[0]?.at.getTime() ?? 0;
      return at > 0;
    },
    { intervalMs: 20, timeoutMs, what: `message ${msgId} decided` },
  );
  return at;
}

/** Put `xml` into the mailbox emulated in PostgreSQL (mailbox.cminmsgs): its CMINMSGS id. */
export async function insertEmulated(pool: pg.Pool, xml: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    "INSERT INTO mailbox.cminmsgs (cminmsgs_clob_msg, cminmsgs_date_received) VALUES ($1, now() AT TIME ZONE 'UTC') RETURNING cminmsgs_id::text AS id",
    [xml],
  );
  return rows[0]!.id;
}
