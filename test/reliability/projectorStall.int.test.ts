/**
 * A projector is never stuck silently (docs/operations.md "Stalled heads", docs/projections.md
 * "Big decisions"): a projector that fails on one decision again and again (the outbox feeder's
 * `Maximum call stack size exceeded` on a 70,000-flight plan, before its rows were made one at a
 * time) or whose batch hangs turns its readiness check `projector:<name>` not ready once its
 * checkpoint has not moved for MSGX_HEAD_STALL_READY_MS while decisions wait — naming the
 * checkpoint, how long and the last error — and `msgx_projection_stalled_seconds` (alert
 * MsgxProjectorStalled) counts the same wait. Both end once it moves. Before, the loop logged the
 * failure once and /readyz stayed ready.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/logger.ts';
import { ensureCheckpoint, readCheckpoint } from '../../src/projections/checkpoint.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { createProjectorLoop, type ProjectorLoop } from '../../src/projections/projectorLoop.ts';
import { createMetrics } from '../../src/read-api/metrics/createMetrics.ts';
import { Wakeup } from '../../src/platform/wakeup.ts';
import { appendDecision, type SeedDecision } from '../support/decisions.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';

const STALL_MS = 60_000;
let db: TestDatabase;
let loop: ProjectorLoop | undefined;

beforeEach(async () => {
  db = await createTestDatabase('projstall');
});
afterEach(async () => {
  await loop?.stop();
  loop = undefined;
  await db.drop();
});

const decision = (i: number): SeedDecision => ({ msgId: String(i), kind: 'Skipped', payload: { reason: 'unknown-flight' }, recordedAt: '2025-03-14T00:00:00Z' });

async function start(projector: Projector, clock: FakeClock): Promise<ProjectorLoop> {
  await ensureCheckpoint(db.pool, projector.name);
  loop = createProjectorLoop({ pool: db.pool, projector, wakeup: new Wakeup(), clock, log: silentLogger, pollIntervalMs: 1000, batchSize: 1, stallReadyMs: STALL_MS });
  await loop.start();
  return loop;
}

async function stalledSeconds(clock: FakeClock, name: string): Promise<number> {
  const text = await createMetrics({ db: db.pool, clock, tz: 'Asia/Shanghai', defaultMetrics: false }).scrape();
  const line = text.split('\n').find((l) => l.startsWith(`msgx_projection_stalled_seconds{projection="${name}"}`));
  return Number(line?.split(' ')[1]);
}

it('a projector failing on one decision again and again: not ready after MSGX_HEAD_STALL_READY_MS with the error, the stall metric counts; ready and 0 once it moves', { timeout: 60_000 }, async () => {
  const clock = new FakeClock();
  for (let i = 1; i <= 3; i++) await appendDecision(db.pool, decision(i));
  let broken = true;
  let failures = 0;
  const projector: Projector = {
    name: 'big',
    async apply(_client, events) {
      if (broken && events[0]!.position === '2') {
        failures += 1;
        throw new RangeError('Maximum call stack size exceeded');
      }
    },
  };
  const service = await start(projector, clock);
  await waitFor(() => failures >= 1, { timeoutMs: 20_000, what: 'the batch of decision 2 to fail' });
  expect(await readCheckpoint(db.pool, 'big')).toBe('1');
  // Within the threshold: ready (a failure that clears itself is no alarm).
  await expect(service.readiness.check()).resolves.toBeUndefined();
  clock.advance(STALL_MS + 1000);
  await waitFor(() => failures >= 2, { timeoutMs: 20_000, what: 'a retry of decision 2' });
  await expect(service.readiness.check()).rejects.toThrow(
    /^projector big at checkpoint 1 has not moved for 6\d s \(MSGX_HEAD_STALL_READY_MS 60000 ms\); last error: RangeError: Maximum call stack size exceeded/,
  );
  expect(service.readiness.name).toBe('projector:big');
  expect(await stalledSeconds(clock, 'big')).toBeGreaterThan(STALL_MS / 1000);
  // Fixed: it moves past, and both say so.
  broken = false;
  clock.advance(1000);
  await waitFor(async () => (await readCheckpoint(db.pool, 'big')) === '3', { timeoutMs: 20_000, what: 'the projector past decision 3' });
  await waitFor(async () => (await service.readiness.check().then(() => true, () => false)), { timeoutMs: 20_000, what: 'ready again' });
  expect(await stalledSeconds(clock, 'big')).toBe(0);
});

it('a batch that hangs: not ready after MSGX_HEAD_STALL_READY_MS, naming the checkpoint', { timeout: 60_000 }, async () => {
  const clock = new FakeClock();
  await appendDecision(db.pool, decision(1));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding = false;
  const projector: Projector = {
    name: 'hung',
    async apply() {
      holding = true;
      await released;
    },
  };
  const service = await start(projector, clock);
  try {
    await waitFor(() => holding, { timeoutMs: 20_000, what: 'the batch to start' });
    await expect(service.readiness.check()).resolves.toBeUndefined();
    clock.advance(STALL_MS + 5000);
    await expect(service.readiness.check()).rejects.toThrow(/^projector hung at checkpoint 0 has not moved for 65 s \(MSGX_HEAD_STALL_READY_MS 60000 ms\); see msgx status$/);
  } finally {
    release();
  }
  await waitFor(async () => (await readCheckpoint(db.pool, 'hung')) === '1', { timeoutMs: 20_000, what: 'the batch committed' });
  await waitFor(async () => (await service.readiness.check().then(() => true, () => false)), { timeoutMs: 20_000, what: 'ready again' });
});
