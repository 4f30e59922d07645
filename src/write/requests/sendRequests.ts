import type pg from 'pg';
import type { Clock } from '../../platform/clock.ts';
import { backoffDelay, type Config } from '../../platform/config.ts';
import { withTransaction } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import { rqfdXml } from './rqfdXml.ts';
import { rqrdXml } from './rqrdXml.ts';

export interface RequestDeps {
  readonly pool: pg.Pool;
  readonly mailbox: Mailbox;
  readonly clock: Clock;
  readonly cfg: Pick<Config, 'airportTz' | 'coutmsgsRoutingId' | 'requestExpireMs' | 'backoffMs' | 'backoffCapMs'>;
  readonly log: Logger;
}

export type SendResult =
  | { readonly reqId: string; readonly sent: true; readonly coutmsgsId: string }
  | { readonly reqId: string; readonly sent: false; readonly error: string };

interface DueRow {
  reqId: string;
  /** RQFD (plan) or RQRD (reference kind `refKind`). */
  kind: string;
  refKind: string | null;
  mgid: string;
  from: Date | null;
  to: Date | null;
  attempts: number;
}

/**
 * Send REGISTERED requests that are due (all, or only `reqId`) as RQFD rows into COUTMSGS:
 * REGISTERED → SENT (coutmsgs_id, sent_at) → WAITING (expires_at = sent_at + MSGX_REQUEST_EXPIRE_MS).
 * The row is locked while its COUTMSGS insert runs, so two senders (the CLI and the writer) never
 * send it twice; a failed insert stays REGISTERED with send_attempts, next_send_at and last_error.
 */
export async function sendRequests(deps: RequestDeps, reqId?: string): Promise<SendResult[]> {
  const now = deps.clock.now();
  const { rows } = await deps.pool.query<DueRow>(
    `SELECT req_id AS "reqId", kind, ref_kind AS "refKind", mgid, window_from AS "from", window_to AS "to", send_attempts AS attempts
       FROM req_track
      WHERE state = 'REGISTERED' AND expires_at > $1 AND (next_send_at IS NULL OR next_send_at <= $1)
        AND ($2::bigint IS NULL OR req_id = $2::bigint)
      ORDER BY req_id`,
    [now, reqId ?? null],
  );
  const results: SendResult[] = [];
  const referenceKinds: string[] = [];
  for (const row of rows) {
    const r = await sendOne(deps, row);
    if (r) results.push(r);
    if (r?.sent && row.kind === 'RQRD') referenceKinds.push(row.refKind ?? '?');
  }
  // A fresh data folder asks for every reference kind at once: one line, not one per request.
  if (referenceKinds.length > 0) {
    deps.log.info({ count: referenceKinds.length, refKinds: referenceKinds.join(',') }, `reference requests sent: ${referenceKinds.length} (RQRD to COUTMSGS)`);
  }
  await promoteSent(deps.pool, deps.cfg.requestExpireMs);
  return results;
}

async function sendOne(deps: RequestDeps, row: DueRow): Promise<SendResult | null> {
  return withTransaction(deps.pool, async (c) => {
    const locked = await c.query("SELECT 1 FROM req_track WHERE req_id = $1 AND state = 'REGISTERED' FOR UPDATE SKIP LOCKED", [row.reqId]);
    if (locked.rowCount === 0) return null; // someone else is sending it, or it moved on
    const now = deps.clock.now();
    const xml = row.kind === 'RQRD'
      ? rqrdXml({ seqn: row.reqId, mgid: row.mgid, sentAt: now, kind: row.refKind! }, deps.cfg.airportTz)
      : rqfdXml({ seqn: row.reqId, mgid: row.mgid, sentAt: now, from: row.from!, to: row.to! }, deps.cfg.airportTz);
    let coutmsgsId: string;
    try {
      coutmsgsId = await deps.mailbox.insertOutbound({ xml, routingId: deps.cfg.coutmsgsRoutingId, insertedAt: now });
    } catch (err) {
      const error = `COUTMSGS insert failed: ${err instanceof Error ? err.message : String(err)}`;
      const attempts = row.attempts + 1;
      await c.query('UPDATE req_track SET send_attempts = $2, next_send_at = $3, last_error = $4 WHERE req_id = $1', [
        row.reqId,
        attempts,
        new Date(now.getTime() + backoffDelay(deps.cfg, attempts)),
        error,
      ]);
      deps.log.warn({ err, reqId: row.reqId, mgid: row.mgid, attempts, kind: row.refKind ?? row.kind }, `${row.kind === 'RQRD' ? 'reference' : 'plan'} request not sent; will retry`);
      return { reqId: row.reqId, sent: false, error };
    }
    await c.query(
      "UPDATE req_track SET state = 'SENT', coutmsgs_id = $2, sent_at = $3, send_attempts = send_attempts + 1, last_error = NULL WHERE req_id = $1",
      [row.reqId, coutmsgsId, now],
    );
    if (row.kind === 'RQRD') deps.log.debug({ reqId: row.reqId, mgid: row.mgid, coutmsgsId, refKind: row.refKind }, 'reference request sent (RQRD to COUTMSGS)');
    else deps.log.info({ reqId: row.reqId, mgid: row.mgid, coutmsgsId }, 'plan request sent (RQFD to COUTMSGS)');
    return { reqId: row.reqId, sent: true, coutmsgsId };
  });
}

/** SENT → WAITING: the answer is awaited from now on, until sent_at + expireMs. */
export async function promoteSent(db: pg.Pool, expireMs: number): Promise<void> {
  await db.query(
    "UPDATE req_track SET state = 'WAITING', expires_at = sent_at + make_interval(secs => $1::double precision / 1000) WHERE state = 'SENT'",
    [expireMs],
  );
}
