/**
 * The board cache's HTTP front (src/read-api/graphql/boardFront.ts, docs/read-api.md "Board
 * cache"), over real HTTP: a repeated board POST is answered with the very bytes of the first
 * answer after reading only the projection positions, with an ETag that `If-None-Match` turns into
 * a 304 and a gzip form for clients that accept it; the answer changes the moment the projection
 * moves, and what is not a cacheable board goes through yoga as before.
 */
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/platform/logger.ts';
import { LIVE_TABLES } from '../../src/readModel/flightTables.ts';
import { writeFlights } from '../../src/projections/writeFlights.ts';
import { createHttpServer, type HttpServer } from '../../src/read-api/httpServer.ts';
import { graphqlHandler } from '../../src/read-api/readApi.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';

const db = fileDatabase('boardfront');
let h: Harness;
let server: HttpServer;
let url: string;

const BOARD = `query($day: Date!) { flights(operationDay: $day, first: 50) { edges { node { flid status } } } }`;
const FLIGHT = `query($flid: ID!) { flight(flid: $flid) { flid status } }`;

beforeAll(async () => {
  h = createHarness(db.pool);
  await insertFlights(db.pool, Array.from({ length: 40 }, (_, i) => flight(String(710_000 + i), { status: 'SCH' })));
  server = createHttpServer({ host: '127.0.0.1', port: 0, log: silentLogger, routes: [{ method: '*', path: '/graphql', handler: graphqlHandler(h.yoga) }] });
  await server.start();
  url = `http://127.0.0.1:${server.port()}/graphql`;
});
afterAll(async () => {
  await server?.stop();
});

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A raw POST (node:http, so content-encoding is seen as sent). */
function post(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function project(status: string): Promise<void> {
  const c = await db.pool.connect();
  try {
    await c.query('BEGIN');
    await writeFlights(c, LIVE_TABLES, [flight('710000', { status })]);
    await c.query("UPDATE projection_checkpoint SET position = position + 1 WHERE name = 'flights'");
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

const day = { day: '2025-03-14' };

it('answers a repeated board with the same bytes and an ETag, reading only the positions', async () => {
  const first = await post(BOARD, day);
  expect(first.status).toBe(200);
  expect(JSON.parse(first.body.toString()).data.flights.edges).toHaveLength(40);
  expect(first.headers.etag).toMatch(/^"[\w-]{27}"$/);
  h.db.reset();
  const again = await post(BOARD, day);
  expect(again.body.equals(first.body)).toBe(true);
  expect(again.headers.etag).toBe(first.headers.etag);
  expect(again.headers['content-type']).toBe(first.headers['content-type']);
  expect(h.db.statements).toHaveLength(1);
  expect(h.db.statements[0]).toMatch(/projection_checkpoint/);
  expect(h.yoga.front.stats().hits).toBeGreaterThanOrEqual(1);
});

it('answers If-None-Match with 304 and no body, and gzip when accepted', async () => {
  const first = await post(BOARD, day);
  const notModified = await post(BOARD, day, { 'if-none-match': first.headers.etag! });
  expect(notModified.status).toBe(304);
  expect(notModified.body.length).toBe(0);
  expect(notModified.headers.etag).toBe(first.headers.etag);
  const zipped = await post(BOARD, day, { 'accept-encoding': 'gzip, deflate' });
  expect(zipped.headers['content-encoding']).toBe('gzip');
  expect(gunzipSync(zipped.body).equals(first.body)).toBe(true);
  expect(zipped.body.length).toBeLessThan(first.body.length);
});

it('never serves an answer, or honours an ETag, from before the projection moved', async () => {
  const before = await post(BOARD, day);
  for (const status of ['BOR', 'DEP', 'CNL']) {
    await project(status);
    const stale = await post(BOARD, day, { 'if-none-match': before.headers.etag! });
    expect(stale.status).toBe(200);
    expect(stale.headers.etag).not.toBe(before.headers.etag);
    const node = JSON.parse(stale.body.toString()).data.flights.edges.find((e: any) => e.node.flid === '710000').node;
    expect(node.status).toBe(status);
  }
});

it('sends other queries, errors and bad bodies through yoga, uncached', async () => {
  const f1 = await post(FLIGHT, { flid: '710001' });
  expect(JSON.parse(f1.body.toString()).data.flight).toEqual({ flid: '710001', status: 'SCH' });
  expect(f1.headers.etag).toBeUndefined();
  const bad = await post(`query($day: Date!) { flights(operationDay: $day, first: 50) { edges { node { nosuchfield } } } }`, day);
  expect(JSON.parse(bad.body.toString()).errors[0].message).toMatch(/nosuchfield/);
  expect(bad.headers.etag).toBeUndefined();
  for (let i = 0; i < 2; i++) {
    const badDay = await post(BOARD, { day: 'not-a-date' });
    expect(JSON.parse(badDay.body.toString()).errors.length).toBeGreaterThan(0);
    expect(badDay.headers.etag).toBeUndefined();
  }
  const text = await post('{ not graphql', {});
  expect(JSON.parse(text.body.toString()).errors.length).toBeGreaterThan(0);
});
