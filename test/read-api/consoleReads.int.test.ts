// The console's reads (docs/read-api.md, "The console's reads"): the board's default day, the
// pipeline's last hour per minute, skipped today, the writer, and the narrowed message list —
// with their bounds refused as bad input.
import { beforeAll, describe, expect, it } from 'vitest';
import { WRITER_LOCK_KEY } from '../../src/domain/contract.ts';
import { createTestDatabase } from '../support/databases.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { appendBatch } from '../support/decisions.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights, insertMessage } from './support/fixtures.ts';

const db = fileDatabase('raconsole');
let h: Harness;
const meta = (type: string, styp: string, sndr = 'AODB') => ({ sndr, type, styp, seqn: '1' });

beforeAll(async () => {
  h = createHarness(db.pool); // the clock: 2025-03-14T04:00:00Z (12:00 in Asia/Shanghai)
  await insertMessage(db.pool, { id: '1', xml: '<MSG/>', state: 'SUCCEEDED', ingestedAt: '2025-03-14T03:50:00Z', meta: meta('FLOP', 'ESTT') });
  await insertMessage(db.pool, { id: '2', xml: '<MSG/>', state: 'SKIPPED', lastError: 'unknown-flight', ingestedAt: '2025-03-14T03:56:00Z', meta: meta('FLOP', 'ACTT') });
  await insertMessage(db.pool, { id: '3', xml: '<MSG/>', state: 'SKIPPED', lastError: 'stale', ingestedAt: '2025-03-13T10:00:00Z', meta: meta('SCHD', 'DNLD', 'OTHER') });
  await insertMessage(db.pool, { id: '4', xml: '<MSG/>', state: 'PENDING', ingestedAt: '2025-03-14T03:58:00Z', meta: meta('FLOP', 'ESTT') });
  // message 1 finished at 03:55, message 2 at 03:56:30; 3 was skipped yesterday (airport time)
  await db.pool.query("UPDATE proc_state SET updated_at = '2025-03-14T03:55:00Z' WHERE msg_id = 1");
  await db.pool.query("UPDATE proc_state SET updated_at = '2025-03-14T03:56:30Z' WHERE msg_id = 2");
  await insertFlights(db.pool, [flight('880001', { operationDay: '2025-03-14' }), flight('880009', { operationDay: '2025-03-15' })]);
  await appendBatch(db.pool, [
    { msgId: '1', flids: ['880001'], recordedAt: '2025-03-14T03:55:00Z', payload: { changes: [] } },
    { msgId: '2', kind: 'Skipped', recordedAt: '2025-03-14T03:56:30Z', payload: { reason: 'unknown-flight' } },
    { msgId: null, flids: ['880009'], recordedAt: '2025-03-14T03:59:10Z', payload: { changes: [] } },
    { msgId: null, kind: 'Skipped', recordedAt: '2025-03-14T03:59:20Z', payload: { reason: 'stale' } },
  ]);
});

describe('the console reads', () => {
  it('takes the board day from the newest decision that touched a flight', async () => {
    const r = await h.gql('{ latestOperationDay }');
    expect(r.errors).toBeUndefined();
    expect(r.data!.latestOperationDay).toBe('2025-03-15');
  });

  it('draws the last minutes from the log and proc_state: decisions per minute, backlog at each minute\'s end', async () => {
    const r = await h.gql('{ pipelineHistory(minutes: 10) { at decisions backlog } }');
    expect(r.errors).toBeUndefined();
    const rows = r.data!.pipelineHistory as { at: string; decisions: number; backlog: number }[];
    expect(rows).toHaveLength(10);
    expect(rows[0]!.at).toBe('2025-03-14T11:51:00+08:00');
    const byMinute = Object.fromEntries(rows.map((m) => [m.at.slice(11, 16), [m.decisions, m.backlog]]));
    expect(byMinute).toEqual({
      '11:51': [0, 1], '11:52': [0, 1], '11:53': [0, 1], '11:54': [0, 1], '11:55': [1, 0],
      '11:56': [1, 0], '11:57': [0, 0], '11:58': [0, 1], '11:59': [2, 1], '12:00': [0, 1],
    });
  });

  it('counts SKIPPED since midnight airport time and shows the writer lock', async () => {
    const r = await h.gql('{ pipeline { skippedToday writer { lockHeld holder epoch standbys } } }');
    expect(r.errors).toBeUndefined();
    expect(r.data!.pipeline).toEqual({ skippedToday: 1, writer: { lockHeld: false, holder: null, epoch: '0', standbys: 0 } });
  });

  it('sees the writer lock of this database only (advisory locks are per database)', async () => {
    const other = await createTestDatabase('raconsole2');
    const elsewhere = await other.pool.connect();
    const here = await db.pool.connect();
    try {
      await elsewhere.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK_KEY]);
      const held = async () => ((await h.gql('{ pipeline { writer { lockHeld } } }')).data!.pipeline as { writer: { lockHeld: boolean } }).writer.lockHeld;
      expect(await held()).toBe(false);
      await here.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK_KEY]);
      expect(await held()).toBe(true);
      await here.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]);
    } finally {
      here.release();
      elsewhere.release();
      await other.drop();
    }
  });

  it('narrows the message list by state, type, subtype, sender and ingest time', async () => {
    const ids = async (args: string) => {
      const r = await h.gql(`{ messagesInState(${args}) { id } }`);
      expect(r.errors).toBeUndefined();
      return (r.data!.messagesInState as { id: string }[]).map((m) => m.id);
    };
    expect(await ids('states: ["SKIPPED"]')).toEqual(['3', '2']);
    expect(await ids('states: ["SKIPPED", "PENDING", "SUCCEEDED"], type: "FLOP", subtype: "ESTT"')).toEqual(['4', '1']);
    expect(await ids('states: ["SKIPPED"], sender: "OTHER"')).toEqual(['3']);
    expect(await ids('states: ["SKIPPED", "PENDING"], since: "2025-03-14T11:56:00+08:00", until: "2025-03-14T11:58:00+08:00"')).toEqual(['2']);
  });

  it('refuses what would be unbounded', async () => {
    const long = await h.gql(`{ messagesInState(states: ["DEAD"], sender: "${'X'.repeat(41)}") { id } }`);
    expect(long.errors![0]!.message).toMatch(/sender must be at most 40/);
    const far = await h.gql('{ pipelineHistory(minutes: 181) { at } }');
    expect(far.errors![0]!.message).toMatch(/minutes must be between 1 and 180/);
  });
});
