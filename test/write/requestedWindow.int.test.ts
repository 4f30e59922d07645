/**
 * interface.md: "a RESP that answers one of our plan requests uses the requested window". The
 * request is registered (req_track + a PlanRequested decision in the log), the RESP naming its MGID
 * comes through CMINMSGS, and the pump deletes the missing flights inside the requested window
 * only — and `msgx redecide` over the whole log decides it the same way (the window comes from
 * the log, not from req_track).
 */
import { expect, it } from 'vitest';
import { registerRequest } from '../../src/write/requests/registerRequest.ts';
import { runRedecide } from '../../src/write/redecide/runRedecide.ts';
import { fltr, schdXml } from '../domain/support/buildXml.ts';
import { fileApp } from '../support/testApp.ts';

const app = fileApp('req_window');

const rec = (flid: string, sodt: string) => fltr(flid, sodt, `<ALCD>ZH</ALCD><FLNO>ZH${flid}</FLNO><MVIN>D</MVIN>`);
const deletedOf = async (flids: string[]): Promise<Record<string, boolean>> => {
  const q = `{ ${flids.map((f) => `f${f}: flight(flid: "${f}") { deleted }`).join(' ')} }`;
  const { data } = await app.gql(q);
  return Object.fromEntries(flids.map((f) => [f, data[`f${f}`].deleted as boolean]));
};

it('a RESP naming our request deletes the missing flights inside the requested window, not those outside it', async () => {
  // 14 MAR local: 31 07:00, 32 11:00, 33 15:00, 34 21:00; 15 MAR: 35 08:00.
  await app.send([schdXml('DNLD', [rec('31', '14MAR250700'), rec('32', '14MAR251100'), rec('33', '14MAR251500'), rec('34', '14MAR252100'), rec('35', '15MAR250800')], { dttm: '20250314020000', seqn: '1' })]);
  await app.drained('plan decided');

  // We ask for 14 MAR 06:00–12:00 (+08:00).
  const reg = await registerRequest(app.rt.pool, {
    from: new Date('2025-03-13T22:00:00Z'), to: new Date('2025-03-14T04:00:00Z'), now: new Date(), expireMs: 3_600_000,
  });
  const logged = await app.rt.pool.query("SELECT payload FROM decision_event WHERE kind = 'PlanRequested'");
  expect(logged.rows.map((r) => r.payload.changes)).toEqual([[
    { type: 'PlanRequested', mgid: reg!.mgid, windowStart: '2025-03-13T22:00:00.000Z', windowEnd: '2025-03-14T04:00:00.000Z' },
  ]]);

  // The answer covers 07:00 and 21:00 only: 11:00 is missing inside the request, 15:00 inside the records' span only.
  await app.send([schdXml('RESP', [rec('31', '14MAR250700'), rec('34', '14MAR252100')], { dttm: '20250314040000', seqn: '2', extra: `<RMID>${reg!.mgid}</RMID>` })]);
  await app.drained('RESP decided');
  expect(await deletedOf(['31', '32', '33', '34', '35'])).toEqual({ 31: false, 32: true, 33: false, 34: false, 35: false });

  const snap = await app.rt.pool.query("SELECT window_start, window_end, deleted FROM schd_snap_log WHERE styp = 'RESP'");
  expect(snap.rows).toEqual([{ window_start: new Date('2025-03-13T22:00:00Z'), window_end: new Date('2025-03-14T04:00:00Z'), deleted: 1 }]);

  // Deciding the whole log again (the request is in it) gives the same answer.
  const { report } = await runRedecide(app.rt.pool, { from: { position: '0' } }, { cfg: app.rt.cfg });
  expect(report).toMatchObject({ differingMessages: [], differingFlights: [], replayableMessages: [] });
  expect(report.decided).toBe(2);
}, 120_000);
