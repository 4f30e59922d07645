/**
 * A KAFKA_SCHD batch is batched and claimed for the writer's epoch in one statement
 * (src/write/delivery/schdBatch.ts), under claimRows' conditions; where one fails the rows are only
 * batched and the send claims them itself (and is refused as before). markSent gives a batch's
 * rows their one ref, and a msg send's rows each their own.
 * The KAFKA_MSG loop reads its fresh head and claims it in one statement too (outboxRows.ts claimFreshHead).
 * The schd loop claims the next full batch while one is sent, and takes it only once that one was delivered.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { claimSchdBatch } from '../../../src/write/delivery/schdBatch.ts';
import { markSent } from '../../../src/write/delivery/markDelivered.ts';
import { claimFreshHead } from '../../../src/write/delivery/outboxRows.ts';
import { fileDatabase } from '../../support/fileDatabase.ts';
import { createSchdWorker } from '../../../src/write/delivery/schdWorker.ts';
import { DeliveryFailure } from '../../../src/write/delivery/deliveryFailure.ts';
import type { KafkaSink, SinkRecord } from '../../../src/write/delivery/kafkaSink.ts';
import { FakeClock } from '../../../src/platform/clock.ts';
import { silentLogger } from '../../../src/platform/logger.ts';

const db = fileDatabase('schdclaim');

async function rows(n: number, target = 'KAFKA_SCHD'): Promise<void> {
  await db.pool.query(
    `INSERT INTO msg_event (target, source_position, seq, flid, payload, created_at)
     SELECT $1, 1, g, g::text, json_build_object('flid', g::text), now() FROM generate_series(0, $2 - 1) g`,
    [target, n],
  );
}

const claims = async () =>
  (await db.pool.query<{ epoch: string | null; batch: string | null }>('SELECT claim_epoch::text AS epoch, batch_id::text AS batch FROM msg_event ORDER BY event_id')).rows;

beforeEach(async () => {
  await db.pool.query('TRUNCATE msg_event');
  await db.pool.query('UPDATE writer_fence SET epoch = 7 WHERE id = 1');
});

describe('a schd batch claimed in one statement', () => {
  it('the fence at our epoch: rows batched and claimed, in event order, their payload as stored', async () => {
    await rows(3);
    const b = await claimSchdBatch(db.pool, 2, { epoch: '7', graceMs: 10_000 });
    expect(b.fenced).toBe(true);
    expect(b.rows.map((r) => r.payloadJson)).toEqual(['{"flid" : "0"}', '{"flid" : "1"}']);
    expect(b.rows[0]).not.toHaveProperty('claimed');
    const c = await claims();
    expect(c.map((r) => r.epoch)).toEqual(['7', '7', null]);
    expect(new Set(c.slice(0, 2).map((r) => r.batch)).size).toBe(1);
  });

  it('the fence past our epoch: rows only batched, no claim; unfenced: no claim either', async () => {
    await rows(2);
    const b = await claimSchdBatch(db.pool, 1, { epoch: '6', graceMs: 10_000 });
    expect(b).toMatchObject({ fenced: false });
    expect(b.rows).toHaveLength(1);
    const u = await claimSchdBatch(db.pool, 1);
    expect(u).toMatchObject({ fenced: false });
    expect((await claims()).map((r) => [r.epoch, r.batch !== null])).toEqual([[null, true], [null, true]]);
  });

  it('a row another epoch claimed within the grace keeps its claim, and the batch is not claimed as a whole', async () => {
    await rows(2);
    await db.pool.query(`UPDATE msg_event SET claim_epoch = 5, claimed_at = clock_timestamp() WHERE seq = 1`);
    const b = await claimSchdBatch(db.pool, 2, { epoch: '7', graceMs: 10_000 });
    expect(b.fenced).toBe(false);
    expect((await claims()).map((r) => r.epoch)).toEqual(['7', '5']);
    await db.pool.query(`UPDATE msg_event SET batch_id = NULL, claimed_at = clock_timestamp() - interval '1 minute'`);
    expect((await claimSchdBatch(db.pool, 2, { epoch: '7', graceMs: 10_000 })).fenced).toBe(true);
  });
});

describe('markSent', () => {
  it('one ref for every row of a batch; each row its own ref otherwise; only PENDING rows change', async () => {
    await rows(2);
    await rows(2, 'KAFKA_MSG');
    const ids = (await db.pool.query<{ id: string }>('SELECT event_id::text AS id FROM msg_event ORDER BY event_id')).rows.map((r) => r.id);
    const batchRef = { topic: 'schd', partition: 0, offset: '12' };
    await markSent(db.pool, ids.slice(0, 2).map((eventId) => ({ eventId, ref: batchRef })), new Date());
    await markSent(db.pool, [{ eventId: ids[2]!, ref: { offset: '1' } }, { eventId: ids[3]!, ref: null }], new Date());
    await markSent(db.pool, [{ eventId: ids[0]!, ref: { offset: 'again' } }], new Date());
    const got = (await db.pool.query<{ state: string; ref: unknown }>('SELECT state, delivery_ref AS ref FROM msg_event ORDER BY event_id')).rows;
    expect(got).toEqual([
      { state: 'SENT', ref: batchRef },
      { state: 'SENT', ref: batchRef },
      { state: 'SENT', ref: { offset: '1' } },
      { state: 'SENT', ref: null },
    ]);
  });
});

describe('a msg head read and claimed in one statement', () => {
  const fence = { epoch: '7', graceMs: 10_000 };

  it('the fresh head and the fresh rows behind it, claimed for our epoch, in event order, as stored', async () => {
    await rows(4, 'KAFKA_MSG');
    const h = await claimFreshHead(db.pool, 'KAFKA_MSG', 3, fence);
    expect(h.fenced).toBe(true);
    expect(h.rows.map((r) => r.payloadJson)).toEqual(['{"flid" : "0"}', '{"flid" : "1"}', '{"flid" : "2"}']);
    expect(h.rows[0]).not.toHaveProperty('claimed');
    expect((await claims()).map((r) => r.epoch)).toEqual(['7', '7', '7', null]);
  });

  it('stops before a row tried before; nothing when the head itself was tried (the plain read decides)', async () => {
    await rows(4, 'KAFKA_MSG');
    await db.pool.query(`UPDATE msg_event SET attempts = 1 WHERE seq = 2`);
    expect((await claimFreshHead(db.pool, 'KAFKA_MSG', 10, fence)).rows.map((r) => r.flid)).toEqual(['0', '1']);
    await db.pool.query(`UPDATE msg_event SET state = 'SENT' WHERE seq < 2`);
    expect((await claimFreshHead(db.pool, 'KAFKA_MSG', 10, fence)).rows).toEqual([]);
    await db.pool.query(`UPDATE msg_event SET attempts = 0, next_attempt_at = now() + interval '1 minute' WHERE seq = 2`);
    expect((await claimFreshHead(db.pool, 'KAFKA_MSG', 10, fence)).rows).toEqual([]);
    expect((await claimFreshHead(db.pool, 'KAFKA_SCHD', 10, fence)).rows).toEqual([]);
  });

  it('the fence past our epoch, or a row another epoch claimed within the grace: returned, not claimed as a whole', async () => {
    await rows(2, 'KAFKA_MSG');
    const past = await claimFreshHead(db.pool, 'KAFKA_MSG', 2, { epoch: '6', graceMs: 10_000 });
    expect(past.fenced).toBe(false);
    expect(past.rows).toHaveLength(2);
    expect((await claims()).map((r) => r.epoch)).toEqual([null, null]);
    await db.pool.query(`UPDATE msg_event SET claim_epoch = 5, claimed_at = clock_timestamp() WHERE seq = 1`);
    expect((await claimFreshHead(db.pool, 'KAFKA_MSG', 2, fence)).fenced).toBe(false);
    expect((await claims()).map((r) => r.epoch)).toEqual(['7', '5']);
    await db.pool.query(`UPDATE msg_event SET claimed_at = clock_timestamp() - interval '1 minute' WHERE seq = 1`);
    expect((await claimFreshHead(db.pool, 'KAFKA_MSG', 2, fence)).fenced).toBe(true);
  });
});

describe('the schd loop, a full batch claimed while the one before it is sent', () => {
  /** A sink that refuses its first `failures` sends (transient) and records what it took. */
  function sink(failures: number): KafkaSink & { readonly sent: string[][] } {
    const sent: string[][] = [];
    let left = failures;
    return {
      kind: 'kafka', description: 'test', sent,
      async send(_topic: string, records: readonly SinkRecord[]) {
        const flids = (JSON.parse(records[0]!.value) as { flid: string }[]).map((f) => f.flid);
        if (left-- > 0) throw new DeliveryFailure('broker away', true);
        sent.push(flids);
        return records.map(() => ({ topic: 'schd', partition: 0, offset: String(sent.length) }));
      },
      check: async () => undefined,
      close: async () => undefined,
    };
  }
  const worker = (s: KafkaSink, clock: FakeClock) => createSchdWorker(
    { pool: db.pool, clock, cfg: { maxAttempts: 5, backoffMs: [1000], backoffCapMs: 1000 }, log: silentLogger },
    s, { topic: 'schd', flushMs: 60_000, flushLimit: 2 },
  );

  it('delivers batch after batch in event order, each claimed while the one before it went out', async () => {
    await rows(5);
    const s = sink(0);
    const w = worker(s, new FakeClock());
    for (let i = 0; i < 2; i++) await w.step();
    // The third batch (one row) is not full: it waits for its flush time, claimed by no one.
    expect(await w.step()).toMatchObject({ kind: 'wait' });
    expect(s.sent).toEqual([['0', '1'], ['2', '3']]);
    expect((await claims()).map((r) => r.batch !== null)).toEqual([true, true, true, true, false]);
  });

  it('a batch that was not delivered goes again before the one claimed behind it', async () => {
    await rows(4);
    const clock = new FakeClock();
    const s = sink(1);
    const w = worker(s, clock);
    await w.step(); // the first batch fails; the second was claimed meanwhile
    expect(s.sent).toEqual([]);
    expect((await claims()).map((r) => r.batch !== null)).toEqual([true, true, true, true]);
    expect(await w.step()).toMatchObject({ kind: 'wait' }); // the oldest open batch waits for its backoff
    clock.advance(60_000);
    await w.step();
    await w.step();
    expect(s.sent).toEqual([['0', '1'], ['2', '3']]);
    const states = (await db.pool.query<{ state: string }>('SELECT state FROM msg_event ORDER BY event_id')).rows.map((r) => r.state);
    expect(states).toEqual(['SENT', 'SENT', 'SENT', 'SENT']);
  });
});
