import { describe, expect, it } from 'vitest';
import { requestPlanCommand } from '../../../src/cli/requestPlanCommand.ts';
import type { PlanSnapshotApplied } from '../../../src/domain/changes.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import type { Mailbox } from '../../../src/platform/mailbox/port.ts';
import { requestPlan } from '../../../src/write/requests/requestPlan.ts';
import { waitFor } from '../../support/waitFor.ts';
import { requestsStage } from './requestsStage.ts';

const t = requestsStage('delivery_req', { MSGX_REQUEST_EXPIRE_MS: '3600000' }, 1000);

function startTracker(env: Record<string, string> = {}, box: Mailbox = t.mailbox): Promise<void> {
  return t.startTracker(env, { mailbox: box, dailyAt: t.cfg(env).requestPlanDailyAt });
}

const runRequestPlan = async (args: string[]): Promise<string> => (await t.runCommand(requestPlanCommand, args)).stdout;

const requests = async () =>
  (
    await t.db.pool.query(
      `SELECT req_id::text AS "reqId", mgid, state, coutmsgs_id::text AS "coutmsgsId", answered_by::text AS "answeredBy",
              window_from AS "from", window_to AS "to", daily_for::text AS "dailyFor", last_error AS "lastError"
         FROM req_track ORDER BY req_id`,
    )
  ).rows;

/** Plays ingest + pump: an inbox message and its Applied decision carrying a RESP snapshot. */
function respDecision(opts: { rmid?: string; window?: [string, string]; metaRecorded?: boolean }): Promise<string> {
  const change: PlanSnapshotApplied = {
    type: 'PlanSnapshotApplied',
    stype: 'RESP',
    day: '2025-03-14',
    windowStart: opts.window?.[0] ?? null,
    windowEnd: opts.window?.[1] ?? null,
    created: 0,
    updated: 0,
    deleted: 0,
    ignored: 0,
  };
  return t.decided({
    raw: (msgId) =>
      `<MSG><META><SNDR>AODB</SNDR><SEQN>${msgId}</SEQN><DTTM>20250314100000</DTTM><TYPE>SCHD</TYPE><STYP>RESP</STYP>` +
      `${opts.rmid ? `<RMID>${opts.rmid}</RMID>` : ''}</META><SCHD><RECS>0</RECS></SCHD></MSG>`,
    meta: opts.metaRecorded === false ? undefined : { sndr: 'AODB', type: 'SCHD', styp: 'RESP', rmid: opts.rmid ?? null },
    handler: 'schd',
    change,
  });
}

describe('msgx request-plan', () => {
  it('registers a request, writes the RQFD to COUTMSGS (MariaDB) and waits; a SCHD/RESP naming its MGID closes it', async () => {
    const stdout = await runRequestPlan(['--from', '2025-03-15T00:00', '--to', '2025-03-15T23:59']);
    const [req] = await requests();
    expect(req).toMatchObject({ state: 'WAITING', answeredBy: null });
    expect(req.mgid).toMatch(new RegExp(`^MSGX-RQ${req.reqId}-[0-9A-F]{6}$`));
    expect(req.from.toISOString()).toBe('2025-03-14T16:00:00.000Z');
    expect(req.to.toISOString()).toBe('2025-03-15T15:59:00.000Z');

    const [row, ...more] = await t.coutmsgs();
    expect(more).toEqual([]);
    expect(row!.routing).toBe('ROUTE-T');
    expect(String(row!.id)).toBe(req.coutmsgsId);
    expect(row!.xml).toMatch(
      new RegExp(
        `^<MSG><META><SNDR>MSGX</SNDR><SEQN>${req.reqId}</SEQN><DTTM>\\d{14}</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP>` +
          `<MGID>${req.mgid}</MGID></META><RQFD><STDB>15MAR250000</STDB><STDE>15MAR252359</STDE></RQFD></MSG>$`,
      ),
    );
    expect(stdout).toContain(`plan request ${req.mgid} (req ${req.reqId}) for 2025-03-15T00:00:00+08:00 .. 2025-03-15T23:59:00+08:00 (Asia/Shanghai)`);
    expect(stdout).toContain(`sent as RQFD to COUTMSGS id ${req.coutmsgsId} (ROUTINGID ROUTE-T); WAITING`);

    await startTracker();
    await respDecision({ rmid: 'SOMEONE-ELSES' , window: ['2025-03-14T16:05:00Z', '2025-03-15T15:00:00Z'] });
    const answer = await respDecision({ rmid: req.mgid });
    const done = await waitFor(async () => (await requests()).find((r) => r.state === 'DONE'), { what: 'request DONE' });
    // the RESP with another RMID did not close it although its window fits; the one naming our MGID did
    expect(done).toMatchObject({ reqId: req.reqId, answeredBy: answer });
  });

  it('a RESP without RMID closes the open request whose window it fits (RMID read from the raw META when not recorded)', async () => {
    await runRequestPlan(['--from', '2025-03-16', '--to', '2025-03-16T23:59']);
    await runRequestPlan(['--from', '2025-03-20', '--to', '2025-03-20T23:59']);
    await startTracker();
    const answer = await respDecision({ window: ['2025-03-15T16:10:00Z', '2025-03-16T15:00:00Z'], metaRecorded: false });
    await waitFor(async () => (await requests()).some((r) => r.state === 'DONE'), { what: 'a request DONE' });
    const [first, second] = await requests();
    expect(first).toMatchObject({ state: 'DONE', answeredBy: answer });
    expect(second).toMatchObject({ state: 'WAITING' });
  });

  it('an unanswered request EXPIRES MSGX_REQUEST_EXPIRE_MS after it was sent', async () => {
    const cfg = t.cfg({ MSGX_REQUEST_EXPIRE_MS: '600000' });
    const sent = await requestPlan({ pool: t.db.pool, mailbox: t.mailbox, clock: t.clock, cfg, log: silentLogger }, new Date('2025-03-14T16:00:00Z'), new Date('2025-03-15T15:59:00Z'));
    expect(sent.send).toMatchObject({ sent: true });
    await startTracker({ MSGX_REQUEST_EXPIRE_MS: '600000' });
    t.clock.advance(600_000 - 1);
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'tracker round done' });
    expect((await requests())[0].state).toBe('WAITING');
    t.clock.advance(1);
    const [req] = await waitFor(async () => {
      const r = await requests();
      return r[0]?.state === 'EXPIRED' ? r : null;
    }, { what: 'EXPIRED' });
    expect(req.lastError).toBe('no answer before expiry');
  });

  it('a COUTMSGS failure leaves the request REGISTERED with its error; the tracker retries after the backoff', async () => {
    let down = true;
    const flaky: Mailbox = { ...t.mailbox, insertOutbound: (row) => (down ? Promise.reject(new Error('Connection lost: The server closed the connection.')) : t.mailbox.insertOutbound(row)) };
    await startTracker({ MSGX_REQUEST_PLAN_DAILY_AT: '09:00' }, flaky);
    const [req] = await waitFor(async () => {
      const r = await requests();
      return r[0]?.lastError ? r : null;
    }, { what: 'send failure recorded' });
    expect(req).toMatchObject({ state: 'REGISTERED', coutmsgsId: null });
    expect(req.lastError).toMatch(/Connection lost/);
    down = false;
    t.clock.advance(1000);
    await waitFor(async () => (await requests())[0]?.state === 'WAITING', { what: 'sent after retry' });
    expect(await t.coutmsgs()).toHaveLength(1);
  });
});

describe('daily plan request (MSGX_REQUEST_PLAN_DAILY_AT)', () => {
  it('at HH:MM airport time requests the whole next day, once, also across a restart', async () => {
    t.clock.set('2025-03-14T21:00:00Z'); // 05:00 local on the 15th
    await startTracker({ MSGX_REQUEST_PLAN_DAILY_AT: '06:00' });
    expect(await requests()).toEqual([]);
    t.clock.set('2025-03-14T22:00:00Z'); // 06:00 local
    const [req] = await waitFor(async () => {
      const r = await requests();
      return r[0]?.state === 'WAITING' ? r : null;
    }, { what: 'daily request sent' });
    expect(req).toMatchObject({ dailyFor: '2025-03-16' });
    expect(req.from.toISOString()).toBe('2025-03-15T16:00:00.000Z');
    expect(req.to.toISOString()).toBe('2025-03-16T15:59:00.000Z');
    expect((await t.coutmsgs())[0]!.xml).toContain('<STDB>16MAR250000</STDB><STDE>16MAR252359</STDE>');

    await t.stopTracker();
    t.clock.advance(60_000);
    await startTracker({ MSGX_REQUEST_PLAN_DAILY_AT: '06:00' });
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'restarted tracker round done' });
    expect(await requests()).toHaveLength(1);
    expect(await t.coutmsgs()).toHaveLength(1);
  });
});
