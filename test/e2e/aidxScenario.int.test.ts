/**
 * AIDX in end to end (docs/contract/aidx.md "AIDX in"): the vendored scenario test/scenarios/
 * aidx-legs (our own AIDX traffic for PEK, with expect.json) posted to POST /cminmsgs/send through
 * the assembled app — ingest → pump → projectors → GraphQL — and checked by the corpus runner; then
 * the leg lookup (flightByLeg), the audit trail (wrapper header and AIDX fields in the decision),
 * and AIDX out of the legs AIDX in created (MSGX_AIDX_OUT, file sink), each fitting the schema
 * description and carrying what came in.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AIDX_NOTIF_SHAPE } from '../../src/domain/aidxOut/aidxShape.ts';
import { expectRedecideVerifyRebuildSame, postedScenario } from './support/postedScenario.ts';
import { waitFor } from '../support/waitFor.ts';
import { checkAidx } from '../write/delivery/support/aidxCheck.ts';
import { checkScenario } from './support/scenarioRunner.ts';

const run = postedScenario('aidx-legs', 'aidx_in', { MSGX_AIRPORT_IATA: 'PEK', MSGX_AIDX_OUT: 'true', MSGX_AIDX_ORIGINATOR: 'PEKAODB' });

describe('AIDX scenario aidx-legs', () => {
  it('every message ends as expect.json says, and every leg holds the state its messages give', async () => {
    expect(await checkScenario(run.app.gql, run.s, run.ids)).toEqual([]);
  });

  it('flightByLeg finds a leg by airline, number, origin date and direction (deleted ones too); a wrong direction finds none', async () => {
    const q = `query($a: String!, $n: String!, $d: Date!, $dir: Direction!) {
      flightByLeg(airline: $a, flightNumber: $n, originDate: $d, direction: $dir) { flid deleted currentStand ffid } }`;
    const dep = await run.app.gql(q, { a: 'ca', n: '1501', d: '2025-03-14', dir: 'DEPARTURE' });
    expect(dep.data.flightByLeg).toEqual([{ flid: '9000222172435387293', deleted: true, currentStand: '105', ffid: 'AIDX|CA|1501|2025-03-14|D||PEK|SHA' }]);
    const arr = await run.app.gql(q, { a: 'MU', n: '5102', d: '2025-03-14', dir: 'ARRIVAL' });
    expect(arr.data.flightByLeg.map((f: { flid: string }) => f.flid)).toEqual(['9002819477502665333']);
    expect((await run.app.gql(q, { a: 'MU', n: '5102', d: '2025-03-14', dir: 'DEPARTURE' })).data.flightByLeg).toEqual([]);
    expect((await run.app.gql(q, { a: 'MU', n: '51-2', d: '2025-03-14', dir: 'ARRIVAL' })).errors).toBeDefined();
  });

  it("message(id) shows the wrapper header and the AIDX fields its decision used", async () => {
    const r = await run.app.gql('query($id: ID!) { message(id: $id) { sender type subtype seqn identityKey decisions { kind flids payload } } }', { id: run.ids[1] });
    const m = r.data.message;
    expect(m).toMatchObject({ type: 'AIDX', subtype: 'FLEG', seqn: '1002', identityKey: 'AODB|AIDX|FLEG|1002|AIDX|MU|5102|2025-03-14|A||SHA|PEK' });
    expect(m.decisions[0].flids).toEqual(['9002819477502665333']);
    const payload = m.decisions[0].payload as string;
    expect(payload).toContain('header SequenceNumber=1002 SendingSystem=AODB MessageType=FLSH');
    expect(payload).toMatch(/leg 1 MU5102 SHA→PEK 2025-03-14 A → flid 9002819477502665333 created; status SCH@1\/9750; fields [^"]*scheduledTime/);
  });

  it('AIDX out publishes the legs AIDX in decided: one record per changed leg, each fitting the schema, carrying the leg key and what came in', async () => {
    const allSent = async () => (await run.db.pool.query("SELECT 1 FROM msg_event WHERE state <> 'SENT'")).rowCount === 0;
    await waitFor(allSent, { what: 'every record written' });
    const records = (await readFile(path.join(run.app.cfg.dataDir, 'out', 'aidx.ndjson'), 'utf8'))
      .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { key: string; value: string });
    for (const r of records) expect(checkAidx(r.value, AIDX_NOTIF_SHAPE)).toEqual([]);
    const ca1501 = records.filter((r) => r.key === '9000222172435387293').map((r) => r.value);
    expect(ca1501.length).toBeGreaterThanOrEqual(5);
    expect(ca1501.at(-1)).toMatch(/<Airline>CA<\/Airline><FlightNumber>1501<\/FlightNumber><DepartureAirport>PEK<\/DepartureAirport><ArrivalAirport>SHA<\/ArrivalAirport>/);
    expect(ca1501.at(-1)).toContain('<SpecialAction>Delete</SpecialAction>');
    expect(ca1501.at(-1)).toContain('<AircraftParkingPosition Qualifier="STAND">105</AircraftParkingPosition>');
    expect(ca1501.at(-1)).toContain('TimeType="ACT">2025-03-14T02:12:00Z</OperationTime>');
  });

  it("the README's AIDX example (docs/examples/one-aidx-leg.xml) is decided and published as the README says", async () => {
    const xml = await readFile(new URL('../../docs/examples/one-aidx-leg.xml', import.meta.url), 'utf8');
    const res = await fetch(`${run.app.base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
    expect(res.status).toBe(200);
    await run.app.drained('example drained');
    const r = await run.app.gql('{ flightByLeg(airline: "CA", flightNumber: "1998", originDate: "2025-03-14", direction: DEPARTURE) { flid ffid scheduledTime estimatedTime currentStand gates { code } aircraftType } }');
    const [f] = r.data.flightByLeg;
    expect(f).toMatchObject({
      ffid: 'AIDX|CA|1998|2025-03-14|D||PEK|SHA', scheduledTime: '2025-03-14T09:30:00+08:00', estimatedTime: '2025-03-14T09:45:00+08:00',
      currentStand: '101', gates: [{ code: 'E1' }], aircraftType: 'A320',
    });
    expect(BigInt(f.flid) >= 9_000_000_000_000_000_000n).toBe(true);
    await waitFor(async () => (await run.db.pool.query("SELECT 1 FROM msg_event WHERE state <> 'SENT'")).rowCount === 0, { what: 'example published' });
    const last = (await readFile(path.join(run.app.cfg.dataDir, 'out', 'aidx.ndjson'), 'utf8')).trim().split('\n').at(-1)!;
    const rec = JSON.parse(last) as { key: string; value: string };
    expect(rec.key).toBe(f.flid);
    expect(rec.value).toContain('<FlightNumber>1998</FlightNumber><DepartureAirport>PEK</DepartureAirport><ArrivalAirport>SHA</ArrivalAirport>');
    expect(rec.value).toContain('TimeType="SCT">2025-03-14T01:30:00Z</OperationTime>');
  });

  it('redecide, verify and rebuild cover AIDX: decided again nothing differs, the check finds nothing, a rebuild gives the same legs and flids and sends nothing again', async () => {
    await expectRedecideVerifyRebuildSame(run, "target = 'AIDX'");
  });
});
