import { beforeAll, describe, expect, it } from 'vitest';
import { createPgMailbox } from '../../src/platform/mailbox/pgMailbox.ts';
import { createMetrics } from '../../src/read-api/metrics/createMetrics.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { appendBatch } from '../support/decisions.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { insertMessage } from './support/fixtures.ts';
import { metricSamples } from '../support/metricSamples.ts';

const db = fileDatabase('rapipipe');
let h: Harness;

beforeAll(async () => {
  const mailbox = createPgMailbox(db.pool, 'Asia/Shanghai');
  h = createHarness(db.pool, { mailbox });
  // CMINMSGS holds ids 1..7; ingest copied 1..5 (watermark 5); 6 and 7 are not copied yet.
  for (let i = 1; i <= 7; i++) await mailbox.insertInbound('<MSG/>', new Date('2025-03-14T01:00:00Z'));
  await db.pool.query("INSERT INTO inbox_cursor (source, watermark) VALUES ('CMINMSGS', 5)");
  await insertMessage(db.pool, { id: '1', xml: '<MSG/>', state: 'SUCCEEDED' });
  await insertMessage(db.pool, { id: '2', xml: '<MSG/>', state: 'DEAD', errorClass: 'MALFORMED' });
  await insertMessage(db.pool, { id: '3', xml: '<MSG/>', state: 'FAILED', errorClass: 'INFRA', attempts: 1, ingestedAt: '2025-03-14T03:58:00Z' });
  await insertMessage(db.pool, { id: '4', xml: '<MSG/>', state: 'PENDING' });
  await insertMessage(db.pool, { id: '5', xml: '<MSG/>', state: 'PENDING' });
  // Parked: terminal for the FIFO, not in the backlog.
  await insertMessage(db.pool, { id: '6', xml: '<MSG/>', state: 'PARKED', errorClass: 'UNSUPPORTED', attempts: 1 });
  await appendBatch(db.pool, [
    { position: '1', msgId: '1', recordedAt: '2025-03-14T01:00:00Z', payload: { changes: [] } },
    { position: '2', msgId: '2', kind: 'Dead', recordedAt: '2025-03-14T01:00:00Z', payload: { errorClass: 'MALFORMED', error: 'not XML', attempt: 1 } },
    { position: '3', msgId: '3', kind: 'Failed', recordedAt: '2025-03-14T01:00:00Z', payload: { errorClass: 'INFRA', error: 'connection reset', attempt: 1, nextAttemptAt: '2025-03-14T01:00:01.000Z' } },
    { position: '4', msgId: null, kind: 'Skipped', recordedAt: '2025-03-14T01:00:00Z', payload: { reason: 'unknown-flight' } },
  ]);
  await db.pool.query("UPDATE projection_checkpoint SET position = CASE name WHEN 'flights' THEN 4 ELSE 1 END");
  await db.pool.query(
    `INSERT INTO msg_event (target, source_position, seq, payload, state, created_at, sent_at)
     VALUES ('KAFKA_MSG', 1, 0, '{}', 'SENT', '2025-03-14T01:00:00Z', '2025-03-14T01:00:00.300Z'),
            ('KAFKA_MSG', 1, 1, '{}', 'PENDING', '2025-03-14T03:59:30Z', NULL),
            ('COUTMSGS', 1, 0, '{}', 'DEAD', '2025-03-14T01:00:00Z', NULL)`,
  );
});

describe('pipeline', () => {
  it('reports backlog (copied and not yet copied), failed/dead, the head and its age, projector lag and outbox per target', async () => {
    const r = await h.gql(`{ pipeline { inboxWatermark backlog uncopied failed dead parked headAgeSeconds logPosition
      head { id state errorClass attempts } projections { name position lag } outbox { target pending dead oldestPendingAgeSeconds } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data!.pipeline).toEqual({
      inboxWatermark: '5', backlog: 3 + 2, uncopied: 2, failed: 1, dead: 1, parked: 1, headAgeSeconds: 120, logPosition: '4',
      head: { id: '3', state: 'FAILED', errorClass: 'INFRA', attempts: 1 },
      projections: [{ name: 'flights', position: '4', lag: '0' }, { name: 'outbox', position: '1', lag: '3' }, { name: 'reference', position: '1', lag: '3' }],
      outbox: [
        { target: 'KAFKA_MSG', pending: 1, dead: 0, oldestPendingAgeSeconds: 30 },
        { target: 'KAFKA_SCHD', pending: 0, dead: 0, oldestPendingAgeSeconds: null },
        { target: 'COUTMSGS', pending: 0, dead: 1, oldestPendingAgeSeconds: null },
        { target: 'AIDX', pending: 0, dead: 0, oldestPendingAgeSeconds: null },
      ],
    });
  });

  it('still answers when the mailbox cannot be read (uncopied null)', async () => {
    const blind = createHarness(db.pool, { mailbox: { countAfter: async () => { throw new Error('mysql down'); } } });
    const r = await blind.gql(`{ pipeline { backlog uncopied } }`);
    expect(r.data!.pipeline).toEqual({ backlog: 3, uncopied: null });
  });
});

describe('metrics', () => {
  it('exposes pipeline gauges, decision counters and the delivery latency histogram, counting each decision once', async () => {
    const m = createMetrics({ db: db.pool, clock: h.clock, tz: 'UTC', defaultMetrics: false });
    const text = await m.scrape();
    expect(metricSamples(text)).toMatchObject({
      msgx_backlog_messages: 3,
      msgx_head_age_seconds: 120,
      msgx_failed_messages: 1,
      msgx_dead_messages: 1,
      msgx_parked_messages: 1,
      'msgx_projection_lag{projection="outbox"}': 3,
      'msgx_outbox_pending{target="KAFKA_MSG"}': 1,
      'msgx_outbox_dead{target="COUTMSGS"}': 1,
      'msgx_outbox_oldest_pending_age_seconds{target="KAFKA_MSG"}': 30,
      'msgx_decisions_total{kind="Applied"}': 1,
      'msgx_skipped_total{reason="unknown-flight"}': 1,
      'msgx_delivery_latency_seconds_bucket{le="0.5",target="KAFKA_MSG"}': 1,
      'msgx_delivery_latency_seconds_bucket{le="0.25",target="KAFKA_MSG"}': 0,
    });

    await appendBatch(db.pool, [{ position: '5', msgId: null, kind: 'Skipped', recordedAt: '2025-03-14T01:00:00Z', payload: { reason: 'duplicate-of:1' } }]);
    const again = await m.scrape();
    expect(metricSamples(again)).toMatchObject({
      'msgx_decisions_total{kind="Applied"}': 1,
      'msgx_decisions_total{kind="Skipped"}': 2,
      'msgx_skipped_total{reason="duplicate-of"}': 1,
      'msgx_delivery_latency_seconds_count{target="KAFKA_MSG"}': 1,
    });
  });
});
