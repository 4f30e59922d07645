/**
 * Both dialects in one FIFO (docs/contract/aidx.md "Finding a leg"): the vendored scenario
 * test/scenarios/sis-aidx-day (a SIS plan, SIS FLOPs and AIDX updates for the same flights, with
 * expect.json) posted to POST /cminmsgs/send through the assembled app and checked by the corpus
 * runner — one flight per leg; then flightByLeg finds a plan's flight by its leg key, and redecide,
 * verify and rebuild over the day give the same flights.
 */
import { describe, expect, it } from 'vitest';
import { expectRedecideVerifyRebuildSame, postedScenario } from './support/postedScenario.ts';
import { checkScenario } from './support/scenarioRunner.ts';

const run = postedScenario('sis-aidx-day', 'sis_aidx', { MSGX_AIRPORT_IATA: 'PEK', MSGX_AIDX_OUT: 'true', MSGX_AIDX_ORIGINATOR: 'PEKAODB' });

const flightCount = async (): Promise<number> => (await run.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM flight_schd')).rows[0]!.n;

describe('SIS and AIDX for the same flights: scenario sis-aidx-day', () => {
  it('every message ends as expect.json says, every leg is one flight holding what both dialects said', async () => {
    expect(await checkScenario(run.app.gql, run.s, run.ids)).toEqual([]);
    expect(await flightCount()).toBe(4);
  });

  it("the AIDX decisions name the plan's flids, found by leg key", async () => {
    const r = await run.app.gql('query($id: ID!) { message(id: $id) { decisions { flids payload } } }', { id: run.ids[2] });
    const [d] = r.data.message.decisions;
    expect(d.flids).toEqual(['770001']);
    expect(d.payload).toContain('→ flid 770001 updated (by leg key)');
    expect(d.payload).toContain('times kept SRT/TAR=');
  });

  it("flightByLeg finds a plan's flight by its leg key (airline, number, origin date, direction) as it finds an AIDX leg", async () => {
    const q = `query($a: String!, $n: String!, $d: Date!, $dir: Direction!) { flightByLeg(airline: $a, flightNumber: $n, originDate: $d, direction: $dir) { flid } }`;
    const flids = async (a: string, n: string, dir: string) => ((await run.app.gql(q, { a, n, d: '2025-03-20', dir })).data.flightByLeg as { flid: string }[]).map((f) => f.flid);
    expect(await flids('CA', '1301', 'DEPARTURE')).toEqual(['770001']);
    expect(await flids('MU', '05301', 'ARRIVAL')).toEqual(['770002']);
    expect(await flids('CA', '1999', 'DEPARTURE')).toEqual(['9004183969190315258']);
    expect(await flids('CA', '1301', 'ARRIVAL')).toEqual([]);
  });

  it('redecide finds nothing to change, verify finds no mismatch, a rebuild gives the same flights and sends nothing again', async () => {
    await expectRedecideVerifyRebuildSame(run);
    expect(await flightCount()).toBe(4);
  });
});
