/**
 * A write-model snapshot waits for the outbox's Kafka rows of its decisions (src/write/snapshot/
 * outboxSettled.ts): the heads of KAFKA_MSG, KAFKA_SCHD and AIDX tell, COUTMSGS does not; the wait
 * ends when they are sent, at its bound, or at stop.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { outboxPassed, outboxSettled } from '../../src/write/snapshot/outboxSettled.ts';
import { fileDatabase } from '../support/fileDatabase.ts';

const db = fileDatabase('snapoutbox');

async function row(target: string, position: number, seq = 0): Promise<void> {
  await db.pool.query(
    `INSERT INTO msg_event (target, source_position, seq, payload, created_at) VALUES ($1, $2, $3, '{"a":1}', now())`,
    [target, position, seq],
  );
}

const sendAll = (upTo: number) => db.pool.query(`UPDATE msg_event SET state = 'SENT', sent_at = now() WHERE source_position <= $1`, [upTo]);

beforeEach(async () => {
  await db.pool.query('TRUNCATE msg_event');
});

describe('a snapshot waits for the outbox', () => {
  it('passed once no Kafka head is at or before the position; COUTMSGS and later rows do not hold it', async () => {
    expect(await outboxPassed(db.pool, '5')).toBe(true);
    await row('KAFKA_MSG', 5);
    await row('KAFKA_SCHD', 5);
    await row('KAFKA_SCHD', 7);
    await row('COUTMSGS', 3);
    expect(await outboxPassed(db.pool, '4')).toBe(true);
    expect(await outboxPassed(db.pool, '5')).toBe(false);
    await sendAll(5);
    await db.pool.query(`UPDATE msg_event SET state = 'PENDING' WHERE target = 'COUTMSGS'`);
    expect(await outboxPassed(db.pool, '5')).toBe(true);
    expect(await outboxPassed(db.pool, '7')).toBe(false);
  });

  it('settles when the rows are sent meanwhile, at its bound when they are not, and at once when aborted', async () => {
    await row('KAFKA_MSG', 9);
    const settled = outboxSettled(db.pool, '9', 60_000);
    let done = false;
    void settled.then(() => {
      done = true;
    });
    expect(done).toBe(false);
    await sendAll(9);
    await settled;

    await row('AIDX', 10);
    await outboxSettled(db.pool, '10', 0);
    expect(await outboxPassed(db.pool, '10')).toBe(false);
    const stop = new AbortController();
    const waiting = outboxSettled(db.pool, '10', 60_000, stop.signal);
    stop.abort();
    await waiting;
  });
});
