/**
 * A group's decisions and their messages' outcomes in one statement (docs/architecture.md "src/log",
 * `appendWithOutcomes.ts`): all of it commits, or — at another writer_fence epoch, another log
 * position, a message in another state, an identity bound meanwhile — nothing does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewDecision } from '../../src/log/appendDecisions.ts';
import { appendWithOutcomes, stageAppendWithOutcomes, type MessageOutcome, type ProcUpdate } from '../../src/log/appendWithOutcomes.ts';
import { FencedError, type WriterFence } from '../../src/platform/writerFence.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';

// A database per test: the log is append-only (its trigger refuses DELETE and TRUNCATE).
let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase('appendoutcomes');
  await db.pool.query("INSERT INTO inbox_message (msg_id, ingested_at, raw_xml) VALUES (1, now(), '<MSG/>'), (2, now(), '<MSG/>'), (9, now(), '<MSG/>')");
  await db.pool.query("INSERT INTO proc_state (msg_id, state, created_at, updated_at) VALUES (1, 'PENDING', now(), now()), (2, 'PENDING', now(), now())");
});
afterEach(async () => {
  await db?.drop();
});

const NOW = new Date('2026-12-06T03:00:00.000Z');
const SKIPPED: ProcUpdate = {
  state: 'SKIPPED', errorClass: null, causeClass: null, lastError: 'duplicate', nextAttemptAt: null, failure: false, terminal: true, backfillStatus: 'SKIPPED',
};
const skipped = (msgId: string): NewDecision => ({ msgId, kind: 'Skipped', handler: null, handlerVersion: null, flids: [], payload: { reason: 'duplicate' } });
const outcome = (msgId: string, decision: number, identity: string | null = null): MessageOutcome => ({
  msgId, expectedState: 'PENDING', expectedAttempts: 0, update: SKIPPED, identity, meta: null, ingestedAt: new Date(), decision,
});
const fenceAt = (epoch: string): WriterFence => ({ epoch: () => epoch, assertHeld: () => undefined, fenced: () => undefined });

/** Messages 1 and 2 PENDING, with a sweep-like decision without a message between their decisions. */
const group = (basis: string, identity: string | null = null) =>
  stageAppendWithOutcomes(
    basis,
    [skipped('1'), { msgId: null, kind: 'Skipped', handler: null, handlerVersion: null, flids: [], payload: { reason: 'sweep' } }, skipped('2')],
    [outcome('1', 0, identity), outcome('2', 2)],
    NOW,
  );

async function state(): Promise<{ log: string[]; last: string; procs: string[] }> {
  const log = await db.pool.query<{ p: string }>('SELECT position::text || \':\' || COALESCE(msg_id::text, \'-\') AS p FROM decision_event ORDER BY position');
  const last = await db.pool.query<{ last: string }>('SELECT last_position::text AS last FROM pipeline_lock WHERE id = 1');
  const procs = await db.pool.query<{ s: string }>(
    "SELECT msg_id || ':' || state || ':' || attempts || ':' || COALESCE(decided_position::text, '-') || ':' || COALESCE(identity_key, '-') AS s FROM proc_state ORDER BY msg_id",
  );
  return { log: log.rows.map((r) => r.p), last: last.rows[0]!.last, procs: procs.rows.map((r) => r.s) };
}

const UNTOUCHED = { log: [], last: '0', procs: ['1:PENDING:0:-:-', '2:PENDING:0:-:-'] };

describe('append with outcomes', () => {
  it('appends the decisions and advances every message to its own decision, under the fence that holds', async () => {
    const staged = group('0', 'ID-1');
    expect(staged.positions).toEqual(['1', '2', '3']);
    expect(await appendWithOutcomes(db.pool, staged, fenceAt('0'))).toEqual({ ok: true });
    expect(await state()).toEqual({ log: ['1:1', '2:-', '3:2'], last: '3', procs: ['1:SKIPPED:1:1:ID-1', '2:SKIPPED:1:3:-'] });
  });

  it("writes each message's META into its own month's partition, whatever months the group spans", async () => {
    // Message 3 was ingested in the last microsecond of a month ahead: PostgreSQL keeps microseconds,
    // the pump reads milliseconds (findHeads' Date), so the META write must take whole months.
    await db.pool.query("INSERT INTO inbox_message (msg_id, ingested_at, raw_xml) VALUES (3, '2027-01-31T23:59:59.999999Z', '<MSG/>')");
    await db.pool.query("INSERT INTO proc_state (msg_id, state, created_at, updated_at) VALUES (3, 'PENDING', now(), now())");
    const { rows: ingested } = await db.pool.query<{ msg_id: string; ingested_at: Date }>('SELECT msg_id, ingested_at FROM inbox_message WHERE msg_id IN (2, 3) ORDER BY msg_id');
    const [two, three] = ingested.map((r) => r.ingested_at) as [Date, Date];
    expect(three.toISOString()).toBe('2027-01-31T23:59:59.999Z');
    const meta = (sndr: string) => ({
      sndr, seqn: '1', dttm: '20270131235959', sentAt: '2027-01-31T23:59:59.000Z', localDate: '2027-02-01', type: 'FLOP', styp: 'ESTT',
      rawType: 'FLOP', rawStyp: 'ESTT', rcvr: null, mgid: null, rmid: null,
    }) as unknown as MessageOutcome['meta'];
    const staged = stageAppendWithOutcomes('0', [skipped('2'), skipped('3')], [
      { ...outcome('2', 0), meta: meta('AODB-NOW'), ingestedAt: two },
      { ...outcome('3', 1), meta: meta('AODB-JAN'), ingestedAt: three },
    ], NOW);
    expect(await appendWithOutcomes(db.pool, staged)).toEqual({ ok: true });
    const { rows } = await db.pool.query<{ m: string }>("SELECT msg_id || ':' || COALESCE(sndr, '-') AS m FROM inbox_message ORDER BY msg_id");
    expect(rows.map((r) => r.m)).toEqual(['1:-', '2:AODB-NOW', '3:AODB-JAN', '9:-']);
  });

  it('writes nothing when the log moved since the group was decided', async () => {
    await db.pool.query('UPDATE pipeline_lock SET last_position = 7 WHERE id = 1');
    expect(await appendWithOutcomes(db.pool, group('0'))).toEqual({ ok: false, conflict: 'log moved to 7 (decided at 0)' });
    expect(await state()).toEqual({ ...UNTOUCHED, last: '7' });
  });

  it('writes nothing, for no message, when one of them is no longer in the state it was decided from', async () => {
    await db.pool.query('UPDATE proc_state SET attempts = 1 WHERE msg_id = 2');
    expect(await appendWithOutcomes(db.pool, group('0'))).toEqual({ ok: false, conflict: 'a head changed state meanwhile' });
    expect(await state()).toEqual({ ...UNTOUCHED, procs: ['1:PENDING:0:-:-', '2:PENDING:1:-:-'] });
  });

  it('writes nothing, for no message, when one of them changes state while the statement waits for its row', async () => {
    // The rows are not locked before the update: the update itself waits for the other
    // transaction, re-checks the changed row, leaves it alone — and the whole statement is undone.
    const other = await db.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('UPDATE proc_state SET attempts = 1 WHERE msg_id = 2');
      const appending = appendWithOutcomes(db.pool, group('0'));
      await waitFor(async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0]!.n > 0;
      }, { what: 'the append to wait for the row the other transaction holds' });
      await other.query('COMMIT');
      expect(await appending).toEqual({ ok: false, conflict: 'a head changed state meanwhile' });
    } finally {
      other.release();
    }
    expect(await state()).toEqual({ ...UNTOUCHED, procs: ['1:PENDING:0:-:-', '2:PENDING:1:-:-'] });
  });

  it('writes nothing when the identity is bound meanwhile', async () => {
    await db.pool.query("INSERT INTO proc_state (msg_id, state, identity_key, created_at, updated_at) VALUES (9, 'SUCCEEDED', 'ID-1', now(), now())");
    expect(await appendWithOutcomes(db.pool, group('0', 'ID-1'))).toEqual({ ok: false, conflict: 'an identity was bound meanwhile' });
    expect((await state()).log).toEqual([]);
  });

  it('refuses at another writer_fence epoch (FencedError), and writes nothing', async () => {
    await expect(appendWithOutcomes(db.pool, group('0'), fenceAt('5'))).rejects.toThrow(FencedError);
    expect(await state()).toEqual(UNTOUCHED);
  });

  it('refuses before sending when the fence cannot prove it holds the lock', async () => {
    const lapsed: WriterFence = { ...fenceAt('0'), assertHeld: () => { throw new FencedError('lease ran out'); } };
    await expect(appendWithOutcomes(db.pool, group('0'), lapsed)).rejects.toThrow('lease ran out');
    expect(await state()).toEqual(UNTOUCHED);
  });
});
