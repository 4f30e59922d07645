import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { INLINE_DECODE_CHARS } from '../../src/write/pump/headDecoder.ts';
import { createForeground, type Foreground } from '../../src/platform/slicing.ts';
import { waitFor } from '../support/waitFor.ts';
import { adft, badTime, estt, unsupported } from './support/messages.ts';
import { decisions, insertCminmsgs, procStates, writeStage } from './support/writeHarness.ts';

const t = writeStage('pump', { afterEachTest: (db) => db.pool.query('DROP TRIGGER IF EXISTS test_refuse_success ON proc_state') });

async function state(id: string) {
  return (await procStates(t.db)).find((p) => p.msg_id === id)!;
}

/** Start ingest (manual polls) + pump on a fake clock; feed `xmls`; wait until the pump is idle. */
async function run(clock: FakeClock, env: Record<string, string>, xmls: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const x of xmls) ids.push(await insertCminmsgs(t.my, x));
  await t.start({ clock, env }, { ingest: false });
  await t.w.ingest.pollOnce();
  await t.w.pump.drained();
  return ids;
}

describe('pump', () => {
  /** Make every commit of message `n` (1-based in the inbox) fail inside the decision transaction: INFRA. */
  async function refuseSuccessOf(n: number): Promise<void> {
    await t.db.pool.query(`CREATE OR REPLACE FUNCTION test_refuse_success() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.state = 'SUCCEEDED' AND NEW.msg_id = (SELECT min(msg_id) + ${n - 1} FROM inbox_message) THEN
        RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER test_refuse_success BEFORE UPDATE ON proc_state FOR EACH ROW EXECUTE FUNCTION test_refuse_success();`);
  }

  it('a FAILED (INFRA) head waiting for its backoff blocks every later message, without spinning', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await refuseSuccessOf(2);
    const [flight, head, behind] = await run(clock, { MSGX_BACKOFF_MS: '1000', MSGX_MAX_ATTEMPTS: '3' }, [
      adft(1, '881001'),
      estt(2, '881001', '14MAR250810'),
      estt(3, '881001', '14MAR250812'),
    ]);
    expect((await state(flight!)).state).toBe('SUCCEEDED');
    expect(await state(head!)).toMatchObject({ state: 'FAILED', error_class: 'INFRA', attempts: 1 });
    expect((await state(behind!)).state).toBe('PENDING');

    // Asking again without moving the clock changes nothing: the pump sleeps on the clock.
    const before = (await decisions(t.db)).length;
    await t.w.pump.drained();
    expect((await decisions(t.db)).length).toBe(before);
    expect(clock.pendingSleepers).toBeGreaterThan(0);

    clock.advance(999);
    await t.w.pump.drained();
    expect(await state(head!)).toMatchObject({ state: 'FAILED', attempts: 1 });
    clock.advance(1);
    await t.w.pump.drained();
    expect(await state(head!)).toMatchObject({ state: 'FAILED', attempts: 2 });
    expect((await state(behind!)).state).toBe('PENDING');

    clock.advance(1000);
    await t.w.pump.drained();
    expect(await state(head!)).toMatchObject({ state: 'DEAD', error_class: 'EXHAUSTED', attempts: 3 });
    expect((await state(behind!)).state).toBe('SUCCEEDED');
    expect((await decisions(t.db)).map((d) => `${d.msg_id}:${d.kind}`)).toEqual([
      `${flight}:Applied`, `${head}:Failed`, `${head}:Failed`, `${head}:Dead`, `${behind}:Applied`,
    ]);
  });

  it('the head deadline since the first failure ends an INFRA head DEAD(EXHAUSTED) before max attempts', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await refuseSuccessOf(2);
    const [, head, behind] = await run(clock, { MSGX_BACKOFF_MS: '1000', MSGX_MAX_ATTEMPTS: '100', MSGX_HEAD_DEADLINE_MS: '2500' }, [
      adft(10, '881001'),
      estt(11, '881001', '14MAR250810'),
      estt(12, '881001', '14MAR250812'),
    ]);
    expect(await state(head!)).toMatchObject({ state: 'FAILED', error_class: 'INFRA', attempts: 1 });
    for (let i = 0; i < 2; i++) {
      clock.advance(1000);
      await t.w.pump.drained();
    }
    expect(await state(head!)).toMatchObject({ state: 'FAILED', attempts: 3 });
    // The next try is due at the deadline (2500), not at 3000.
    const { rows } = await t.db.pool.query('SELECT next_attempt_at FROM proc_state WHERE msg_id = $1', [head]);
    expect((rows[0].next_attempt_at as Date).toISOString()).toBe('2025-03-14T00:00:02.500Z');
    clock.advance(500);
    await t.w.pump.drained();
    const dead = await state(head!);
    expect(dead).toMatchObject({ state: 'DEAD', error_class: 'EXHAUSTED', attempts: 4 });
    expect(dead.last_error).toContain('head deadline 2500 ms');
    expect(dead.last_error).toContain('disk on fire');
    expect((await state(behind!)).state).toBe('SUCCEEDED');
    const last = (await decisions(t.db)).filter((d) => d.msg_id === head).at(-1)!;
    expect(last).toMatchObject({ kind: 'Dead', payload: { errorClass: 'EXHAUSTED', causeClass: 'INFRA', attempt: 4 } });
  });

  it('CODEC_ERROR and UNSUPPORTED park at once, hold nothing back, and are written back to CMINMSGS as PARKED', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const [flight, unknown, bad, good] = await run(clock, {}, [
      adft(50, '881005'),
      unsupported(51, '881005'),
      badTime(52, '881005'),
      estt(53, '881005', '14MAR250812'),
    ]);
    // One drain, no clock movement: nothing waited for a backoff.
    expect(await state(unknown!)).toMatchObject({ state: 'PARKED', error_class: 'UNSUPPORTED', attempts: 1, backfill_status: 'PARKED' });
    expect(await state(bad!)).toMatchObject({ state: 'PARKED', error_class: 'CODEC_ERROR', attempts: 1, backfill_status: 'PARKED' });
    expect((await state(bad!)).last_error).toContain('ESTT');
    expect((await state(good!)).state).toBe('SUCCEEDED');
    const log = await decisions(t.db);
    expect(log.map((d) => `${d.msg_id}:${d.kind}`)).toEqual([`${flight}:Applied`, `${unknown}:Parked`, `${bad}:Parked`, `${good}:Applied`]);
    expect(log[1]!.payload).toMatchObject({ errorClass: 'UNSUPPORTED', error: expect.stringContaining('FLOP/ZZZZ') });
    expect(log[2]!.payload).toMatchObject({ errorClass: 'CODEC_ERROR', error: expect.stringContaining("invalid time 'not-a-time'") });
    await waitFor(async () => {
      const [rows] = await t.my.pool.query('SELECT CMINMSGS_ID AS id, CMINMSGS_STATUS AS status FROM CMINMSGS ORDER BY CMINMSGS_ID');
      return (rows as { status: string | null }[]).map((r) => r.status).join(',') === 'PROCESSED,PARKED,PARKED,PROCESSED';
    }, { what: 'CMINMSGS write-back with PARKED' });
  });

  it('binds identity at the first successful decode; a duplicate is SKIPPED duplicate-of and changes no flight', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const [, first, dup, otherSender] = await run(clock, {}, [
      adft(20, '881001'),
      estt(21, '881001', '14MAR250812'),
      estt(21, '881001', '14MAR250840'),
      estt(21, '881001', '14MAR250850', 'CIIMS'),
    ]);
    expect(await state(first!)).toMatchObject({ state: 'SUCCEEDED', identity_key: 'AODB|FLOP|ESTT|21' });
    expect(await state(dup!)).toMatchObject({ state: 'SKIPPED', last_error: `duplicate-of:${first}`, identity_key: null });
    expect(await state(otherSender!)).toMatchObject({ state: 'SUCCEEDED', identity_key: 'CIIMS|FLOP|ESTT|21' });
    const d = (await decisions(t.db)).find((x) => x.msg_id === dup)!;
    expect(d).toMatchObject({ kind: 'Skipped', payload: { reason: `duplicate-of:${first}` } });
    // 08:50 local from CIIMS is the last applied ESTT; the duplicate's 08:40 never was.
    expect(t.w.model.flights.get('881001')!.estimatedTime).toBe('2025-03-14T00:50:00.000Z');
    const applied = (await decisions(t.db)).filter((x) => x.kind === 'Applied').map((x) => x.msg_id);
    expect(applied).not.toContain(dup);
    // The database refuses a second binding of an identity.
    await expect(t.db.pool.query("UPDATE proc_state SET identity_key = 'AODB|FLOP|ESTT|21' WHERE msg_id = $1", [dup])).rejects.toMatchObject({ code: '23505' });
  });

  it('finds the owner of an identity bound in an earlier scan (one lookup per group)', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const [, first] = await run(clock, {}, [adft(30, '881002'), estt(31, '881002', '14MAR250812')]);
    const dup = await insertCminmsgs(t.my, estt(31, '881002', '14MAR250840'));
    const fresh = await insertCminmsgs(t.my, estt(32, '881002', '14MAR250845'));
    await t.w.ingest.pollOnce();
    await t.w.pump.drained();
    expect(await state(dup)).toMatchObject({ state: 'SKIPPED', last_error: `duplicate-of:${first}` });
    expect(await state(fresh)).toMatchObject({ state: 'SUCCEEDED', identity_key: 'AODB|FLOP|ESTT|32' });
  });

  it('decides a big message (64 KiB of XML or more) in a group of its own, so a backlog of plans is not one giant transaction', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const padded = (xml: string) => xml.replace('<MSG>', `<MSG><!--${'x'.repeat(INLINE_DECODE_CHARS)}-->`);
    const ids = await run(clock, {}, [
      adft(40, '881003'),
      estt(41, '881003', '14MAR250811'),
      padded(estt(42, '881003', '14MAR250812')),
      padded(estt(43, '881003', '14MAR250813')),
      estt(44, '881003', '14MAR250814'),
      estt(45, '881003', '14MAR250815'),
    ]);
    const { rows } = await t.db.pool.query<{ msg_id: string; tx: string }>('SELECT msg_id::text, xmin::text AS tx FROM decision_event ORDER BY position');
    const tx = rows.map((r) => r.tx);
    expect(rows.map((r) => r.msg_id)).toEqual(ids);
    // Small ones group; each big one commits alone, and what follows it starts a new group.
    expect(tx[0]).toBe(tx[1]);
    expect(new Set([tx[1], tx[2], tx[3], tx[4]]).size).toBe(4);
    expect(tx[4]).toBe(tx[5]);
    // A big one commits while it is folded: the model has every decision, in order.
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(ids.map(() => 'SUCCEEDED'));
    expect(t.w.pump.model.flights.get('881003')).toMatchObject({ stateVersion: ids.length, lastMsgId: ids.at(-1) });
  });

  it('holds the foreground from the decode of a head of 1 MiB or more until the group after it has committed; not for a smaller big head', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    const inner = createForeground();
    const seen: { entered: number; ended: number; positionAtEnd?: string } = { entered: 0, ended: 0 };
    const foreground: Foreground = {
      ...inner,
      enter() {
        seen.entered += 1;
        const end = inner.enter();
        return () => {
          seen.ended += 1;
          seen.positionAtEnd = t.w.pump.model.position; // the write model after the last commit
          end();
        };
      },
    };
    const padded = (xml: string, chars: number) => xml.replace('<MSG>', `<MSG><!--${'x'.repeat(chars)}-->`);
    const ids: string[] = [];
    for (const x of [adft(50, '881005'), padded(estt(51, '881005', '14MAR250812'), INLINE_DECODE_CHARS), padded(estt(52, '881005', '14MAR250813'), 1024 * 1024), estt(53, '881005', '14MAR250814')]) {
      ids.push(await insertCminmsgs(t.my, x));
    }
    await t.start({ clock }, { ingest: false, foreground });
    await t.w.ingest.pollOnce();
    await t.w.pump.drained();
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(ids.map(() => 'SUCCEEDED'));
    // Once, for the 1 MiB head only; ended (once) when the message after it had committed.
    const { rows } = await t.db.pool.query<{ p: string }>('SELECT decided_position::text AS p FROM proc_state WHERE msg_id = $1', [ids[3]]);
    expect(seen).toEqual({ entered: 1, ended: 1, positionAtEnd: rows[0]!.p });
  });

  it('one transaction per decision: a refused proc_state update appends nothing; INFRA is recorded and retried', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    // Refuse any success of the second message, inside the decision transaction.
    await t.db.pool.query(`CREATE OR REPLACE FUNCTION test_refuse_success() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.state = 'SUCCEEDED' AND NEW.msg_id = (SELECT min(msg_id) + 1 FROM inbox_message) THEN
        RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER test_refuse_success BEFORE UPDATE ON proc_state FOR EACH ROW EXECUTE FUNCTION test_refuse_success();`);
    const [a, b, c] = await run(clock, { MSGX_BACKOFF_MS: '1000', MSGX_MAX_ATTEMPTS: '5' }, [
      adft(30, '881002'),
      estt(31, '881002', '14MAR250812'),
      estt(32, '881002', '14MAR250815'),
    ]);
    expect(await state(b!)).toMatchObject({ state: 'FAILED', error_class: 'INFRA', attempts: 1 });
    expect((await state(c!)).state).toBe('PENDING');
    const log1 = await decisions(t.db);
    expect(log1.map((d) => `${d.msg_id}:${d.kind}`)).toEqual([`${a}:Applied`, `${b}:Failed`]);
    expect(log1[1]!.payload).toMatchObject({ errorClass: 'INFRA', attempt: 1 });
    expect(String(log1[1]!.payload.error)).toContain('disk on fire');
    // The write model only holds what committed.
    expect(t.w.model.position).toBe('2');
    expect(t.w.model.flights.get('881002')!.estimatedTime).toBeNull();

    await t.db.pool.query('DROP TRIGGER test_refuse_success ON proc_state');
    clock.advance(1000);
    await t.w.pump.drained();
    expect((await procStates(t.db)).map((p) => p.state)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    expect((await decisions(t.db)).map((d) => Number(d.position))).toEqual([1, 2, 3, 4]);
    expect(t.w.model.flights.get('881002')!.estimatedTime).toBe('2025-03-14T00:15:00.000Z');
  });

  it('groups decided ahead of a commit that fails are dropped and decided again against what committed', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    // 1 ADFT + 180 ESTTs of one flight: four groups of 50, each decided against the one before it
    // while that one commits. Message 75 (in the second group) cannot succeed.
    const time = (i: number) => `14MAR25${String(8 + Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`;
    await refuseSuccessOf(75);
    const ids = await run(clock, { MSGX_BACKOFF_MS: '1000', MSGX_MAX_ATTEMPTS: '5' }, [
      adft(50, '881005'),
      ...Array.from({ length: 180 }, (_, i) => estt(100 + i, '881005', time(i))),
    ]);
    // The first group committed, the second was isolated one head at a time up to message 75;
    // nothing decided ahead of it (against states that never committed) reached the log or the model.
    const states = await procStates(t.db);
    expect(states.slice(0, 74).every((p) => p.state === 'SUCCEEDED')).toBe(true);
    expect(states[74]).toMatchObject({ msg_id: ids[74], state: 'FAILED', error_class: 'INFRA' });
    expect(states.slice(75).every((p) => p.state === 'PENDING')).toBe(true);
    expect((await decisions(t.db)).map((d) => d.msg_id)).toEqual(ids.slice(0, 75));
    expect(t.w.model.position).toBe('75');
    expect(t.w.model.flights.get('881005')!.estimatedTime).toBe('2025-03-14T01:12:00.000Z'); // message 74: 09:12 local

    await t.db.pool.query('DROP TRIGGER test_refuse_success ON proc_state');
    clock.advance(1000);
    await t.w.pump.drained();
    expect((await procStates(t.db)).every((p) => p.state === 'SUCCEEDED')).toBe(true);
    const log = await decisions(t.db);
    expect(log.map((d) => Number(d.position))).toEqual(Array.from({ length: 182 }, (_, i) => i + 1));
    expect(log.filter((d) => d.kind === 'Applied').map((d) => d.msg_id)).toEqual(ids);
    // The write model is what a fresh fold of the log gives.
    const flight = t.w.model.flights.get('881005')!;
    expect(flight.estimatedTime).toBe('2025-03-14T02:59:00.000Z'); // the last ESTT: 10:59 local
    await t.w.stop();
    const w = await t.startWriter({ ingest: false });
    expect(w.model.flights.get('881005')).toEqual(flight);
  });

  it('a restarted pump folds the same write model from the log and carries on', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await run(clock, {}, [adft(40, '881003'), estt(41, '881003', '14MAR250812')]);
    const before = structuredClone([...t.w.model.flights.entries()]);
    await t.w.stop();
    await insertCminmsgs(t.my, estt(42, '881003', '14MAR250830'));
    const w = await t.startWriter({ ingest: false });
    expect([...w.model.flights.entries()]).toEqual(before);
    await w.ingest.pollOnce();
    await w.pump.drained();
    expect(w.model.flights.get('881003')!.estimatedTime).toBe('2025-03-14T00:30:00.000Z');
    expect(w.model.position).toBe('3');
  });

  it('reloads its write model from the log when a projection rebuild announces itself', async () => {
    const clock = new FakeClock('2025-03-14T00:00:00Z');
    await run(clock, {}, [adft(1, '881001')]);
    expect(t.w.pump.model.flights.has('881001')).toBe(true);
    // Simulate a model that went wrong in memory; only a fold of the log can put it right.
    t.w.pump.model.flights.delete('881001');
    await t.db.pool.query("SELECT pg_notify('msgx_rebuilt', 'flights')");
    await waitFor(() => t.w.pump.model.flights.has('881001'), { what: 'model reloaded' });
    expect(t.w.pump.model.flights.get('881001')!.aircraftType).not.toBeUndefined();
  });
});
