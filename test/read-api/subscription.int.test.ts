import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/platform/logger.ts';
import { withTransaction } from '../../src/platform/db.ts';
import { createHttpServer, type HttpServer } from '../../src/read-api/httpServer.ts';
import { graphqlHandler } from '../../src/read-api/readApi.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { appendWith } from '../support/decisions.ts';
import { waitFor } from '../support/waitFor.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';
import { subscribeSse } from './support/sse.ts';
import { LIVE_TABLES } from '../../src/readModel/flightTables.ts';
import { writeFlights } from '../../src/projections/writeFlights.ts';

const db = fileDatabase('rapisub');
let h: Harness;
let http: HttpServer;
let url: string;

beforeAll(async () => {
  h = createHarness(db.pool);
  await insertFlights(db.pool, [flight('900', { stateVersion: 1 }), flight('901', { stateVersion: 1, operationDay: '2025-03-15' })]);
  await h.feed.start();
  http = createHttpServer({
    host: '127.0.0.1', port: 0, log: silentLogger,
    routes: [{ method: '*', path: '/graphql', handler: graphqlHandler(h.yoga) }],
  });
  await http.start();
  url = `http://127.0.0.1:${http.port()}/graphql`;
});
afterAll(async () => {
  await http?.stop();
  await h?.feed.stop();
});

/** The pump's append, then what the flight projector does (rows, checkpoint and NOTIFY), in one transaction. */
async function project(position: number, flids: string[], version: number, hold?: () => Promise<void>) {
  await withTransaction(db.pool, async (c) => {
    await appendWith(c, {
      position: String(position), flids, recordedAt: new Date(),
      payload: { changes: flids.map((flid) => ({ type: 'FlightUpdated' as const, flid, fields: { status: `V${version}` } })) },
    });
    await writeFlights(c, LIVE_TABLES, flids.map((flid) => flight(flid, {
      stateVersion: version, status: `V${version}`, lastPosition: String(position), operationDay: flid === '901' ? '2025-03-15' : '2025-03-14',
      gates: [{ seq: 1, code: `G${version}`, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
    })));
    await c.query("UPDATE projection_checkpoint SET position = $1 WHERE name = 'flights'", [position]);
    await c.query("SELECT pg_notify('msgx_projection', $1)", [`flights:${position}`]);
    await hold?.();
  });
}

it('emits one FlightChange per touched flight after the projection commits, filtered by flight and day', async () => {
  const Q = `subscription($flid: ID, $day: Date) { flightChanged(flid: $flid, operationDay: $day) {
    flid position type flight { flid stateVersion status gates { code } } } }`;
  const only900 = subscribeSse(url, Q, { flid: '900' });
  const day15 = subscribeSse(url, Q, { day: '2025-03-15' });
  await waitFor(() => h.feed.subscribers() === 2, { what: 'two subscribers', timeoutMs: 10_000 });

  // While the projector's transaction is open, the row is not visible and nothing is emitted; the
  // event that finally arrives carries the committed row (version 2), which it could not have read
  // before the commit.
  let committed = false;
  const first = only900.next().then((e) => ({ e, committed }));
  await project(1, ['900', '901'], 2, async () => {
    const { rows } = await db.pool.query('SELECT state_version FROM flight_schd WHERE flid = 900');
    expect(rows[0].state_version).toBe(1); // other sessions still see the old row
  });
  committed = true;
  const got = await first;
  expect(got.committed).toBe(true);
  expect(got.e.data.flightChanged).toEqual({
    flid: '900', position: '1', type: 'FlightUpdated', flight: { flid: '900', stateVersion: 2, status: 'V2', gates: [{ code: 'G2' }] },
  });
  // the day filter let 901 (2025-03-15) through and not 900
  expect((await day15.next()).data.flightChanged).toMatchObject({ flid: '901', position: '1', flight: { stateVersion: 2 } });

  // lists are read fresh for each event (not cached for the life of the subscription)
  await project(2, ['900'], 3);
  expect((await only900.next()).data.flightChanged).toMatchObject({ position: '2', flight: { stateVersion: 3, gates: [{ code: 'G3' }] } });
  await project(3, ['901'], 4);
  expect((await day15.next()).data.flightChanged).toMatchObject({ flid: '901', position: '3' });
  only900.close();
  day15.close();
  await waitFor(() => h.feed.subscribers() === 0, { what: 'subscribers gone' });
});
