/**
 * The operator's gauges on /metrics: open gaps (and the oldest one's age), PARKED messages,
 * pending CMINMSGS write-backs, and whether the mailbox answers.
 */
import { beforeAll, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { createMetrics } from '../../src/read-api/metrics/createMetrics.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { insertMessage } from './support/fixtures.ts';
import { metricSamples } from '../support/metricSamples.ts';

const db = fileDatabase('opsmetrics');
const clock = new FakeClock(new Date('2025-03-14T04:00:00Z'));

beforeAll(async () => {
  await db.pool.query(
    `INSERT INTO inbox_gap (source, gap_id, opened_at, closed_at, closed_by) VALUES
       ('CMINMSGS', 6, '2025-03-14T03:59:00Z', NULL, NULL), ('CMINMSGS', 8, '2025-03-14T03:59:50Z', NULL, NULL),
       ('CMINMSGS', 3, '2025-03-14T01:00:00Z', '2025-03-14T01:01:00Z', 'expired')`,
  );
  for (const id of ['1', '2', '4']) await insertMessage(db.pool, { id, xml: '<MSG/>', state: 'SUCCEEDED' });
  await db.pool.query(`UPDATE proc_state SET backfill_state = 'PENDING' WHERE msg_id IN (1, 4)`);
  await db.pool.query(`UPDATE proc_state SET backfill_state = 'DONE' WHERE msg_id = 2`);
});

it('exposes open gaps, the oldest gap age, parked, pending write-backs and mailbox reachability', async () => {
  let up = true;
  const m = createMetrics({ db: db.pool, clock, tz: 'UTC', defaultMetrics: false, mailbox: { ping: async () => { if (!up) throw new Error('mysql down'); } } });
  const text = await m.scrape();
  expect(metricSamples(text)).toMatchObject({
    msgx_open_gaps: 2,
    msgx_oldest_open_gap_age_seconds: 60,
    msgx_parked_messages: 0,
    msgx_pending_writebacks: 2,
    msgx_mailbox_up: 1,
  });
  up = false;
  await db.pool.query(`UPDATE inbox_gap SET closed_at = '2025-03-14T04:00:00Z', closed_by = 'appeared' WHERE gap_id = 6`);
  const later = await m.scrape();
  expect(metricSamples(later)).toMatchObject({
    msgx_mailbox_up: 0,
    msgx_open_gaps: 1,
    msgx_oldest_open_gap_age_seconds: 10,
  });
});
