/**
 * RQRD reference requests through the delivery path, against real MariaDB COUTMSGS: the writer's
 * request at start on an empty store (all 23 kinds, once), `msgx request-reference --kind`, DONE on
 * the RESP of that kind, EXPIRED after MSGX_REQUEST_EXPIRE_MS.
 */
import { describe, expect, it } from 'vitest';
import { requestReferenceCommand } from '../../../src/cli/requestReferenceCommand.ts';
import type { ReferenceSnapshotApplied } from '../../../src/domain/reference/changes.ts';
import { REFERENCE_KIND_NAMES } from '../../../src/domain/reference/kinds.ts';
import { silentLogger } from '../../../src/platform/logger.ts';
import { captureLog } from '../../reliability/support/captureLog.ts';
import { waitFor } from '../../support/waitFor.ts';
import { requestsStage } from './requestsStage.ts';

const t = requestsStage('delivery_rqrd', { MSGX_REQUEST_EXPIRE_MS: '600000' }, 5000);

const startupLog = captureLog('info');
const startTracker = (referenceAtStart: boolean): Promise<void> => t.startTracker({}, { referenceAtStart, log: startupLog.log });

const requests = async () =>
  (
    await t.db.pool.query<{ reqId: string; kind: string; refKind: string; mgid: string; state: string; coutmsgsId: string | null; answeredBy: string | null }>(
      `SELECT req_id::text AS "reqId", kind, ref_kind AS "refKind", mgid, state, coutmsgs_id::text AS "coutmsgsId", answered_by::text AS "answeredBy"
         FROM req_track ORDER BY req_id`,
    )
  ).rows;

const rqrdRows = () => t.coutmsgs('<TYPE>RQRD</TYPE>');

const rtypOf = (xml: string): string => /<RQRD><RTYP>([A-Z]{4})<\/RTYP><\/RQRD>/.exec(xml)?.[1] ?? '';

async function runCommand(args: string[]): Promise<string> {
  const { code, stdout } = await t.runCommand(requestReferenceCommand, args);
  expect(code).toBe(0);
  return stdout;
}

/** Plays ingest + pump: a decided `<kind>/<stype>` reference snapshot. */
function referenceDecision(kind: string, stype: 'RESP' | 'DNLD'): Promise<string> {
  const change: ReferenceSnapshotApplied = {
    type: 'ReferenceSnapshotApplied', kind, stype, records: 0, declaredRecords: 0, upserted: 0, unchanged: 0, deleted: 0, skipped: 0, empty: true,
  };
  return t.decided({ raw: () => '<MSG/>', handler: `reference.${kind}.${stype}`, change });
}

// The log is append-only: the tests run in this order (the first two need a store without reference data).
describe('reference requests (RQRD)', () => {
  it('a writer with an empty store requests all 23 kinds at start, once (not again on a restart while they are open)', async () => {
    await startTracker(true);
    const rows = await waitFor(async () => {
      const r = await rqrdRows();
      return r.length === 23 ? r : null;
    }, { what: '23 RQRD rows' });
    expect(rows.map((r) => rtypOf(r.xml)).sort()).toEqual([...REFERENCE_KIND_NAMES].sort());
    // The operator reads a summary, not 23 lines: info lines count the requests, none names one.
    const logLines = () => startupLog.text().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; count?: number; reqId?: string });
    const summarised = () => logLines().filter((l) => l.msg.startsWith('reference requests sent')).reduce((n, l) => n + (l.count ?? 0), 0);
    await waitFor(async () => summarised() === 23, { what: 'the summary line(s) counting 23 requests' });
    const lines = logLines();
    expect(lines.filter((l) => l.reqId !== undefined && /RQRD/.test(l.msg))).toEqual([]);
    const reqs = await waitFor(async () => {
      const r = await requests();
      return r.length === 23 && r.every((q) => q.state === 'WAITING') ? r : null;
    }, { what: 'all WAITING' });
    for (const [i, row] of rows.entries()) {
      expect(row.routing).toBe('ROUTE-T');
      expect(row.xml).toMatch(/^<MSG><META><SNDR>MSGX<\/SNDR><SEQN>\d+<\/SEQN><DTTM>\d{14}<\/DTTM><TYPE>RQRD<\/TYPE><STYP>NONE<\/STYP><MGID>MSGX-RR\d+-[0-9A-F]{6}<\/MGID><\/META><RQRD><RTYP>[A-Z]{4}<\/RTYP><\/RQRD><\/MSG>$/);
      expect(reqs.find((q) => q.coutmsgsId === String(row.id))?.refKind, `row ${i}`).toBe(rtypOf(row.xml));
    }
    await t.stopTracker();
    await startTracker(true);
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'tracker round done' });
    expect(await rqrdRows()).toHaveLength(23);
  });

  it('msgx request-reference --kind AIRL,ARPT writes two RQRD rows; the RESP of AIRL closes only AIRL; the rest EXPIRES', async () => {
    await startTracker(true);
    await waitFor(async () => (await rqrdRows()).length === 23, { what: 'start requests' });
    // The 23 rows are in COUTMSGS before the tracker's round ends: it still looks for due requests
    // after them, and a request the command registers meanwhile is sent by the tracker (the command
    // then says 'busy'). The round is over once the tracker sleeps on the fake clock.
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'tracker round done' });
    const stdout = await runCommand(['--kind', 'airl, ARPT']);
    const rows = await rqrdRows();
    expect(rows).toHaveLength(25);
    expect(rows.slice(23).map((r) => rtypOf(r.xml))).toEqual(['AIRL', 'ARPT']);
    expect(stdout).toMatch(/^AIRL: request MSGX-RR\d+-[0-9A-F]{6} \(req \d+\) sent as RQRD to COUTMSGS id \d+; WAITING for AIRL\/RESP$/m);

    const answer = await referenceDecision('AIRL', 'RESP');
    await referenceDecision('ARPT', 'DNLD'); // a DNLD answers no request
    const done = await waitFor(async () => {
      const r = (await requests()).filter((q) => q.state === 'DONE');
      return r.length === 2 ? r : null;
    }, { what: 'AIRL requests DONE' });
    expect(done.map((q) => [q.refKind, q.answeredBy])).toEqual([['AIRL', answer], ['AIRL', answer]]);

    // The 22 requests the tracker sent (on the fake clock) expire MSGX_REQUEST_EXPIRE_MS after they were
    // sent; the command's ARPT request was sent on the real clock (its own runtime) and still waits.
    t.clock.advance(600_000);
    const after = await waitFor(async () => {
      const r = await requests();
      return r.filter((q) => q.state === 'EXPIRED').length === 22 ? r : null;
    }, { what: 'the others EXPIRED' });
    expect(after.filter((q) => q.state === 'WAITING').map((q) => q.refKind)).toEqual(['ARPT']);
  });

  it('asks nothing at start when the store holds reference data, or when MSGX_REQUEST_REFERENCE_AT_START is off', async () => {
    await startTracker(false);
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'tracker round done' });
    expect(await rqrdRows()).toEqual([]);
    await t.stopTracker();
    await referenceDecision('AIRL', 'DNLD');
    await startTracker(true);
    await waitFor(() => t.clock.pendingSleepers > 0, { what: 'tracker round done' });
    expect(await rqrdRows()).toEqual([]);
  });

  it('refuses unknown kinds', async () => {
    await expect(requestReferenceCommand.run(['--kind', 'AIRL,XXXX'], { cfg: t.cfg(), log: silentLogger })).rejects.toThrow(/kinds must be reference kinds .*\(got 'AIRL,XXXX'\)/);
  });
});
