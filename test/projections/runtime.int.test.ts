import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { FakeClock } from '../../src/platform/clock.ts';
import type { PoolClient } from '../../src/platform/db.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { ensureCheckpoint, readCheckpoint } from '../../src/projections/checkpoint.ts';
import type { DecisionEvent } from '../../src/log/readDecisions.ts';
import { createDecisionListener, type DecisionListener } from '../../src/projections/decisionListener.ts';
import { projectionStatus } from '../../src/readModel/projectionStatus.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { createProjectorLoop, type ProjectorLoop } from '../../src/projections/projectorLoop.ts';
import { runBatch } from '../../src/projections/runBatch.ts';
import { Wakeup } from '../../src/platform/wakeup.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';
import { appendDecision, appendWith, type DecisionInput } from '../support/decisions.ts';

let db: TestDatabase;
const running: { stop(): Promise<void> }[] = [];

beforeEach(async () => {
  db = await createTestDatabase('projruntime');
  // What the test projector saw, written inside its batch transaction (no key: duplicates would show).
  await db.pool.query('CREATE TABLE seen (projector text NOT NULL, position bigint NOT NULL)');
});
afterEach(async () => {
  for (const s of running.splice(0).reverse()) await s.stop();
  await db.drop();
});

/** Records every position it is given into `seen`. */
function recorder(name = 'test', extra?: (c: PoolClient, events: readonly DecisionEvent[]) => Promise<void>): Projector {
  return {
    name,
    async apply(client, events) {
      await client.query('INSERT INTO seen (projector, position) SELECT $1, unnest($2::bigint[])', [name, events.map((e) => e.position)]);
      await extra?.(client, events);
    },
  };
}

const decision = (i: number): DecisionInput => ({
  msgId: String(i), kind: 'Skipped', payload: { reason: 'unknown-flight' }, recordedAt: new Date('2025-03-14T00:00:00Z'),
});

async function startLoop(projector: Projector, clock: FakeClock, batchSize = 5): Promise<{ service: ProjectorLoop; listener: DecisionListener }> {
  const wakeup = new Wakeup();
  const listener = createDecisionListener({ pool: db.pool, wakeups: [wakeup], clock, log: silentLogger, retryMs: 1000 });
  const service = createProjectorLoop({ pool: db.pool, projector, wakeup, clock, log: silentLogger, pollIntervalMs: 1000, batchSize });
  await listener.start();
  running.push(listener);
  await service.start();
  running.push(service);
  return { service, listener };
}

async function seen(name = 'test'): Promise<string[]> {
  const { rows } = await db.pool.query('SELECT position FROM seen WHERE projector = $1 ORDER BY position', [name]);
  return rows.map((r) => r.position);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

describe('projector runtime', () => {
  it('is woken by msgx_decision (the fake clock never advances) and NOTIFYs msgx_projection after each batch', async () => {
    const clock = new FakeClock();
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    const heard: string[] = [];
    watcher.on('notification', (n) => heard.push(String(n.payload)));
    await watcher.query('LISTEN msgx_projection');
    try {
      await startLoop(recorder(), clock, 3);
      for (let i = 1; i <= 7; i++) await appendDecision(db.pool, decision(i));
      await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === '7', { what: 'checkpoint 7' });
      expect(await seen()).toEqual(range(7));
      await waitFor(() => heard.includes('test:7'), { what: 'msgx_projection test:7' });
      // Every notification names a committed checkpoint, in increasing order.
      const positions = heard.map((h) => Number(h.split(':')[1]));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    } finally {
      await watcher.end();
    }
  });

  it('falls back to polling on the injected clock when no notification arrives', async () => {
    const clock = new FakeClock();
    await startLoop(recorder(), clock);
    await waitFor(() => clock.pendingSleepers > 0, { what: 'projector waiting' });
    // Appended without NOTIFY: only the polling timer can find it. Written by hand on purpose:
    // appendDecisions always NOTIFies.
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT 1 FROM pipeline_lock WHERE id = 1 FOR UPDATE');
      await c.query(
        `INSERT INTO decision_event (position, msg_id, kind, payload, recorded_at) VALUES (1, 1, 'Skipped', '{}', now())`,
      );
      await c.query('UPDATE pipeline_lock SET last_position = 1');
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    expect(await readCheckpoint(db.pool, 'test')).toBe('0');
    clock.advance(1000);
    await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === '1', { what: 'poll picked up position 1' });
  });

  it('reconnects its LISTEN connection after it is killed', async () => {
    const clock = new FakeClock();
    const { listener } = await startLoop(recorder(), clock);
    await appendDecision(db.pool, decision(1));
    await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === '1');
    await db.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    );
    await waitFor(() => !listener.listening(), { what: 'listener noticed the loss' });
    await waitFor(() => clock.pendingSleepers >= 2, { what: 'listener and projector waiting' });
    clock.advance(1000); // the listener's retry delay (the projector also polls once)
    await waitFor(() => listener.listening(), { what: 'listener back' });
    await appendDecision(db.pool, decision(2));
    await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === '2', { what: 'woken by the new connection' });
  });

  it('never skips a position while concurrent appenders take pipeline_lock', async () => {
    const clock = new FakeClock();
    await startLoop(recorder(), clock, 7);
    const appenders = 6;
    const each = 40;
    await Promise.all(
      Array.from({ length: appenders }, async (_, a) => {
        for (let i = 0; i < each; i++) {
          const c = await db.pool.connect();
          try {
            await c.query('BEGIN');
            await appendWith(c, decision(a * 1000 + i));
            // Hold the lock a little, so appenders queue behind each other while the projector reads.
            await c.query('SELECT pg_sleep(random() * 0.003)');
            await c.query('COMMIT');
          } finally {
            c.release();
          }
        }
      }),
    );
    const max = String(appenders * each);
    await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === max, { what: `checkpoint ${max}` });
    expect(await seen()).toEqual(range(appenders * each));
  });

  it('does not see a position while the transaction holding it is open, nor anything behind it', async () => {
    const clock = new FakeClock();
    const projector = recorder();
    await ensureCheckpoint(db.pool, 'test');
    await appendDecision(db.pool, decision(1));
    const open = await db.pool.connect();
    try {
      await open.query('BEGIN');
      expect(await appendWith(open, decision(2))).toBe('2');
      // A second appender queues on pipeline_lock: it cannot take position 3 before 2 commits.
      const second = appendDecision(db.pool, decision(3));
      await waitFor(async () => {
        const { rows } = await db.pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0].n === 1;
      }, { what: 'second appender waiting for pipeline_lock' });
      expect(await runBatch(db.pool, projector, { batchSize: 10, clock })).toMatchObject({ kind: 'applied', to: '1' });
      expect(await runBatch(db.pool, projector, { batchSize: 10, clock })).toMatchObject({ kind: 'idle', position: '1' });
      await open.query('COMMIT');
      expect(await second).toBe('3');
    } finally {
      open.release();
    }
    expect(await runBatch(db.pool, projector, { batchSize: 10, clock })).toMatchObject({ kind: 'applied', from: '1', to: '3' });
    expect(await seen()).toEqual(['1', '2', '3']);
  });

  it('applies each position exactly once with two instances of the same projector', async () => {
    const clock = new FakeClock();
    await startLoop(recorder(), clock, 3);
    await startLoop(recorder(), clock, 3);
    for (let i = 1; i <= 60; i++) await appendDecision(db.pool, decision(i));
    await waitFor(async () => (await readCheckpoint(db.pool, 'test')) === '60', { what: 'checkpoint 60' });
    expect(await seen()).toEqual(range(60));
  });

  it('rolls the whole batch back when the compare-and-set loses', async () => {
    const clock = new FakeClock();
    await ensureCheckpoint(db.pool, 'test');
    for (let i = 1; i <= 3; i++) await appendDecision(db.pool, decision(i));
    let rolledBack = 0;
    const thief: Projector = {
      ...recorder('test', async (c) => {
        // Another writer moved the checkpoint inside our transaction's view.
        await c.query("UPDATE projection_checkpoint SET position = 2 WHERE name = 'test'");
      }),
      rolledBack: () => {
        rolledBack += 1;
      },
    };
    expect(await runBatch(db.pool, thief, { batchSize: 10, clock })).toEqual({ kind: 'conflict' });
    expect(rolledBack).toBe(1);
    expect(await seen()).toEqual([]);
    expect(await readCheckpoint(db.pool, 'test')).toBe('0');
  });

  it('reports position, lag and since when decisions wait per projector', async () => {
    // A checkpoint moved "later" than decision 3 was recorded: it waits since that move.
    const clock = new FakeClock('2099-01-01T00:00:00Z');
    await ensureCheckpoint(db.pool, 'test');
    for (let i = 1; i <= 5; i++) await appendDecision(db.pool, decision(i));
    await runBatch(db.pool, recorder(), { batchSize: 2, clock });
    const waiting = expect.any(Date);
    expect(await projectionStatus(db.pool)).toEqual([
      { name: 'flights', position: '0', lag: '5', waitingSince: waiting },
      { name: 'outbox', position: '0', lag: '5', waitingSince: waiting },
      { name: 'reference', position: '0', lag: '5', waitingSince: waiting },
      { name: 'test', position: '2', lag: '3', waitingSince: waiting },
    ]);
    // The later of the checkpoint's move (the batch's clock) and the recording of decision 3; the
    // projectors that never moved wait since decision 1 was recorded (before now).
    const status = await projectionStatus(db.pool);
    expect(status.find((p) => p.name === 'test')!.waitingSince!.getTime()).toBe(clock.now().getTime());
    expect(status.find((p) => p.name === 'flights')!.waitingSince!.getTime()).toBeLessThanOrEqual(Date.now());
    await runBatch(db.pool, recorder(), { batchSize: 10, clock });
    expect((await projectionStatus(db.pool)).find((p) => p.name === 'test')).toEqual({ name: 'test', position: '5', lag: '0', waitingSince: null });
  });
});
