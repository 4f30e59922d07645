/**
 * The progress recorder writes at a bounded rate — at once on a phase change, else at most once
 * per interval, plus a heartbeat — never once per event; its outcome always; and a database that
 * refuses never fails the operation.
 */
import { describe, expect, it } from 'vitest';
import { startOperation } from '../../src/operations/progress.ts';
import { FakeClock } from '../../src/platform/clock.ts';
import type { Queryable } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';

interface Sent {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** A Queryable that records statements; `fail` makes every one after the INSERT reject. */
function fakeDb(opts: { fail?: 'insert' | 'updates' } = {}) {
  const sent: Sent[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const db = {
    sent,
    /** Hold the next UPDATE until `let go()`: a slow database. */
    holdNext: () => void (hold = true),
    letGo: () => release?.(),
    query: async (text: string, values: unknown[] = []) => {
      sent.push({ text, values });
      if (text.startsWith('INSERT')) {
        if (opts.fail === 'insert') throw new Error('relation "operation_progress" does not exist');
        return { rows: [{ id: '7' }] };
      }
      if (text.startsWith('UPDATE') && opts.fail === 'updates') throw new Error('connection lost');
      if (text.startsWith('UPDATE') && hold) {
        hold = false;
        await new Promise<void>((r) => (release = r));
      }
      return { rows: [] };
    },
  };
  return db;
}

const updates = (db: ReturnType<typeof fakeDb>) => db.sent.filter((s) => s.text.startsWith('UPDATE'));
const settle = () => new Promise((r) => setImmediate(r));

describe('operation progress recorder', () => {
  it('writes a phase change at once and, within a phase, at most once per interval: never per event', async () => {
    const db = fakeDb();
    const clock = new FakeClock();
    const rec = await startOperation(db as unknown as Queryable, clock, silentLogger, { kind: 'rebuild-flights', startedBy: 'carol' }, { intervalMs: 1000, heartbeatMs: 60_000 });
    expect(rec.id).toBe('7');
    const insert = db.sent.find((s) => s.text.startsWith('INSERT'))!;
    expect(insert.values.slice(0, 3)).toEqual(['rebuild-flights', null, 'carol']);

    for (let i = 1; i <= 500; i++) rec.update({ phase: 'replay', done: i, total: 500 }); // 500 events within one instant
    await settle();
    expect(updates(db).map((u) => u.values)).toEqual([['7', 'replay', 1, 500]]);

    clock.advance(999);
    rec.update({ phase: 'replay', done: 501, total: 600 });
    await settle();
    expect(updates(db)).toHaveLength(1); // not due yet: kept for later
    clock.advance(1);
    rec.update({ phase: 'replay', done: 502, total: 600 });
    await settle();
    expect(updates(db).at(-1)!.values).toEqual(['7', 'replay', 502, 600]);

    rec.update({ phase: 'write', done: 600, total: 600 }); // a new phase: at once
    await settle();
    expect(updates(db).at(-1)!.values).toEqual(['7', 'write', 600, 600]);
    expect(updates(db)).toHaveLength(3);

    await rec.finish('done', 'rebuilt flights: 600 events');
    const last = updates(db).at(-1)!;
    expect(last.text).toContain('finished_at = now()');
    expect(last.values).toEqual(['7', 'done', 'rebuilt flights: 600 events', 'write', 600, 600]);
    rec.update({ phase: 'late', done: 1, total: 1 });
    await settle();
    expect(updates(db)).toHaveLength(4); // nothing after the outcome
  });

  it('never has two writes in flight: the latest progress follows when the slow one returns', async () => {
    const db = fakeDb();
    const clock = new FakeClock();
    const rec = await startOperation(db as unknown as Queryable, clock, silentLogger, { kind: 'redecide', startedBy: 'dave' }, { intervalMs: 1000, heartbeatMs: 60_000 });
    db.holdNext();
    rec.update({ phase: 'decide', done: 1, total: 9 });
    await settle();
    clock.advance(5000);
    rec.update({ phase: 'decide', done: 5, total: 9 });
    rec.update({ phase: 'decide', done: 9, total: 9 });
    await settle();
    expect(updates(db)).toHaveLength(1); // the first is still in flight
    db.letGo();
    await settle();
    await settle();
    expect(updates(db).map((u) => u.values[2])).toEqual([1, 9]);
    await rec.finish('done', 'ok');
  });

  it('beats while nothing reports, so a reader can tell a slow step from a dead process', async () => {
    const db = fakeDb();
    const clock = new FakeClock();
    const rec = await startOperation(db as unknown as Queryable, clock, silentLogger, { kind: 'rebuild-flights', startedBy: 'carol' }, { intervalMs: 1000, heartbeatMs: 5000 });
    rec.update({ phase: 'switch', done: 10, total: 10 });
    await settle();
    expect(updates(db)).toHaveLength(1);
    clock.advance(5000);
    await settle();
    expect(updates(db)).toHaveLength(2);
    expect(updates(db)[1]!.values).toEqual(['7', 'switch', 10, 10]);
    clock.advance(5000);
    await settle();
    expect(updates(db)).toHaveLength(3);
    await rec.finish('done', 'ok');
    expect(clock.pendingSleepers).toBe(0); // the heartbeat stopped
  });

  it('a database that refuses makes it a no-op, never a failure of the operation', async () => {
    const missing = fakeDb({ fail: 'insert' });
    const none = await startOperation(missing as unknown as Queryable, new FakeClock(), silentLogger, { kind: 'redecide', startedBy: 'x' });
    expect(none.id).toBeNull();
    none.update({ done: 1 });
    await none.finish('done', 'ok');
    expect(updates(missing)).toEqual([]);

    const broken = fakeDb({ fail: 'updates' });
    const rec = await startOperation(broken as unknown as Queryable, new FakeClock(), silentLogger, { kind: 'redecide', startedBy: 'x' });
    rec.update({ phase: 'decide', done: 1, total: 2 });
    await settle();
    await expect(rec.finish('failed', 'boom')).resolves.toBeUndefined();
    expect(updates(broken)).toHaveLength(2);
  });
});
