/**
 * Any session may NOTIFY (PostgreSQL has no privilege for the command): the live feed takes a
 * notification only as a hint and never moves past the flight projector's checkpoint (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.ts';
import { createFlightFeed, type FlightFeed } from '../../src/read-api/live/flightFeed.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { waitFor } from '../support/waitFor.ts';
import { captureLog } from './support/captureLog.ts';

const db = fileDatabase('forgednotify');
let feed: FlightFeed;
const captured = captureLog('info');

beforeAll(async () => {
  feed = createFlightFeed({ pool: db.pool, clock: systemClock, log: captured.log });
  await feed.start();
});
afterAll(async () => {
  await feed?.stop();
});

describe('live feed and forged notifications', () => {
  it('ignores a NOTIFY naming a position the log does not have', async () => {
    await waitFor(() => feed.listening(), { what: 'feed listening' });
    const before = feed.position();
    const sub = feed.subscribe({})[Symbol.asyncIterator]();
    for (let i = 0; i < 50; i++) await db.pool.query(`NOTIFY msgx_projection, 'flights:${999_999_999 + i}'`);
    await waitFor(() => /a notification named a position the log does not have; ignored/.test(captured.text()), { what: 'the forged notification noticed' });
    expect(feed.position()).toBe(before);
    await sub.return?.();
  });
});
