/**
 * The board response cache (src/read-api/graphql/responseCache.ts): a repeated board query with
 * unchanged data is answered without reading the board again, and a cached answer is never
 * served once the projection has moved — the flight projector's rows and checkpoint commit
 * together, as here, and the very next request sees the new rows.
 */
import { beforeAll, expect, it } from 'vitest';
import { LIVE_TABLES } from '../../src/readModel/flightTables.ts';
import { writeFlights } from '../../src/projections/writeFlights.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';

const db = fileDatabase('rapicache');
let h: Harness;

const BOARD = `query($day: Date!) { flights(operationDay: $day, first: 10) { edges { node { flid status statusInfo { name } stands { code } } } } }`;
const day = { day: '2025-03-14' };

beforeAll(async () => {
  h = createHarness(db.pool);
  await insertFlights(db.pool, [flight('700001', { status: 'SCH' }), flight('700002', { status: 'SCH' })]);
  await db.pool.query(`INSERT INTO reference_record (kind, code, fields, name, last_position, updated_at) VALUES ('STTS', 'SCH', '{}', 'Scheduled', 1, now())`);
});

/** What the flight projector does for a decision: the rows and the checkpoint in one transaction. */
async function project(status: string): Promise<void> {
  const c = await db.pool.connect();
  try {
    await c.query('BEGIN');
    await writeFlights(c, LIVE_TABLES, [flight('700001', { status, stands: [{ seq: 1, code: `S-${status}`, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }] })]);
    await c.query("UPDATE projection_checkpoint SET position = position + 1 WHERE name = 'flights'");
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

const node = (r: any, flid: string) => r.data.flights.edges.find((e: any) => e.node.flid === flid).node;

it('answers a repeated board from the cache, reading only the checkpoints', async () => {
  const first: any = await h.gql(BOARD, day);
  expect(first.errors).toBeUndefined();
  h.db.reset();
  const again = await h.gql(BOARD, day);
  expect(again).toEqual(first);
  expect(h.db.statements).toHaveLength(1);
  expect(h.db.statements[0]).toMatch(/projection_checkpoint/);
  // other variables are another answer
  h.db.reset();
  const other: any = await h.gql(BOARD, { day: '2025-03-15' });
  expect(other.data.flights.edges).toEqual([]);
  expect(h.db.statements.length).toBeGreaterThan(1);
});

it('never serves a cached answer after the projection moved', async () => {
  await h.gql(BOARD, day); // cached at the current position
  for (const status of ['BOR', 'DEP', 'ARR', 'SCH', 'CNL']) {
    await project(status);
    const r: any = await h.gql(BOARD, day);
    expect(node(r, '700001').status).toBe(status);
    expect(node(r, '700001').stands).toEqual([{ code: `S-${status}` }]);
    expect(node(r, '700001').statusInfo).toEqual(status === 'SCH' ? { name: 'Scheduled' } : null);
    expect(await h.gql(BOARD, day)).toEqual(r); // and cached again at the new position
  }
});

it('drops cached answers when the reference projection moves (the …Info fields)', async () => {
  await project('SCH');
  const before: any = await h.gql(BOARD, day);
  expect(node(before, '700002').statusInfo).toEqual({ name: 'Scheduled' });
  await db.pool.query(`BEGIN; UPDATE reference_record SET name = 'Planned' WHERE kind = 'STTS' AND code = 'SCH';
    UPDATE projection_checkpoint SET position = position + 1 WHERE name = 'reference'; COMMIT`);
  const after: any = await h.gql(BOARD, day);
  expect(node(after, '700002').statusInfo).toEqual({ name: 'Planned' });
});
