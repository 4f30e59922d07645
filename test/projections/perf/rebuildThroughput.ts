/**
 * Throughput of the flight projection (not a test; run by hand):
 *
 *   node --import tsx test/projections/perf/rebuildThroughput.ts [events=200000] [flightsPerDay=1000]
 *
 * Builds a fresh database with a synthetic log (per day one plan decision creating every flight,
 * then single-change operations on random flights), then times `rebuildFlights` over it, and the
 * live projector over a slice of it. Prints events/s for both, and — since a shared machine makes
 * wall time noisy — the CPU seconds spent by this process and by the database's backends (read
 * from /proc; PostgreSQL must run on this machine): events per CPU-second of each side bound
 * what an idle 2-core machine can do.
 */
import type { Change } from '../../../src/domain/changes.ts';
import { emptyFields } from '../../../src/domain/fields.ts';
import { emptyLists } from '../../../src/domain/lists.ts';
import { FakeClock, systemClock } from '../../../src/platform/clock.ts';
import { createLogger } from '../../../src/platform/logger.ts';
import { migrate } from '../../../src/platform/migrate.ts';
import { createFlightProjector } from '../../../src/projections/flightProjector.ts';
import { formatProgress } from '../../../src/projections/rebuild/progress.ts';
import { rebuildFlights } from '../../../src/projections/rebuild/rebuildFlights.ts';
import { runBatch } from '../../../src/projections/runBatch.ts';
import { backendCpu, cpuSince } from '../../../bench/harness/backendCpu.ts';
import { createTestDatabase } from '../../support/databases.ts';
import { appendBatch, type DecisionInput } from '../../support/decisions.ts';

const EVENTS = Number(process.argv[2] ?? 200_000);
const PER_DAY = Number(process.argv[3] ?? 1000);

function* decisions(): Generator<DecisionInput> {
  let n = 0;
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let day = 0; n < EVENTS; day++) {
    const date = new Date(Date.UTC(2025, 2, 1 + day));
    const iso = (min: number) => new Date(date.getTime() + min * 60_000).toISOString();
    const opDay = date.toISOString().slice(0, 10);
    const flids = Array.from({ length: PER_DAY }, (_, i) => String(1_000_000 + day * PER_DAY + i));
    const created: Change[] = flids.map((flid, i) => ({
      type: 'FlightCreated', flid, operationDay: opDay,
      fields: { ...emptyFields(), ffid: `ZH-ZH${i}-D-${opDay}`, airline: 'ZH', flightNo: `ZH${i}`, direction: 'D', scheduledTime: iso(360 + i), serviceType: 'J', flightNature: 'D' },
      lists: {
        ...emptyLists(),
        stands: [{ seq: 1, code: '201', class: null, kind: null, scheduledStart: iso(330 + i), scheduledEnd: iso(420 + i), actualStart: null, actualEnd: null }],
        gates: [{ seq: 1, code: 'G01', class: null, kind: 'D', scheduledStart: iso(320 + i), scheduledEnd: iso(350 + i), actualStart: null, actualEnd: null }],
        route: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: iso(240 + i) }, { seq: 2, airport: 'TAO', scheduledArrival: iso(360 + i), scheduledDeparture: null }],
        adjacent: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: iso(240 + i) }],
      },
    }));
    n += 1;
    yield { msgId: String(n), kind: 'Applied', payload: { changes: created }, recordedAt: new Date(date.getTime() + 3600_000) };
    for (let k = 0; k < PER_DAY * 19 && n < EVENTS; k++) {
      const flid = flids[Math.floor(rand() * PER_DAY)]!;
      const r = rand();
      const change: Change = r < 0.6
        ? { type: 'FlightUpdated', flid, fields: { estimatedTime: iso(300 + Math.floor(rand() * 600)), status: r < 0.3 ? 'DLY' : 'ONB' } }
        : r < 0.8
          ? { type: 'DelaysReplaced', flid, items: [{ code: '93', start: iso(400), durationMinutes: Math.floor(rand() * 60) }] }
          : { type: 'StandsReplaced', flid, items: [{ seq: 1, code: 'R31', class: null, kind: null, scheduledStart: iso(300), scheduledEnd: iso(400), actualStart: null, actualEnd: null }] };
      n += 1;
      yield { msgId: String(n), kind: 'Applied', flids: [flid], payload: { changes: [change] }, recordedAt: new Date(date.getTime() + 7200_000 + Math.floor(k / 500) * 1000) };
    }
  }
}

const db = await createTestDatabase('perf', { migrated: false });
const out = (s: string) => process.stderr.write(`${s}\n`);
try {
  await migrate(db.pool);
  let chunk: DecisionInput[] = [];
  for (const d of decisions()) {
    chunk.push(d);
    if (chunk.length === 5000) {
      await appendBatch(db.pool, chunk);
      chunk = [];
    }
  }
  if (chunk.length) await appendBatch(db.pool, chunk);
  out(`log: ${EVENTS} events, ${PER_DAY} flights per day`);

  // Reading alone (the floor of any replay).
  const { readDecisionsAfter } = await import('../../../src/log/readDecisions.ts');
  const tr = performance.now();
  for (let pos = '0'; ;) {
    const page = await readDecisionsAfter(db.pool, pos, 5000);
    if (page.length === 0) break;
    pos = page[page.length - 1]!.position;
  }
  out(`read only: ${Math.round(EVENTS / ((performance.now() - tr) / 1000))} events/s`);

  // PROFILE=<file>: a CPU profile of the rebuild alone, written to <file>.
  const inspector = process.env.PROFILE ? new (await import('node:inspector')).Session() : undefined;
  const post = (method: string) => new Promise<unknown>((res, rej) => inspector!.post(method, (e, r) => (e ? rej(e) : res(r))));
  if (inspector) {
    inspector.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
  }
  const pgBefore = await backendCpu(db.pool);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await rebuildFlights({
    pool: db.pool, clock: systemClock, log: createLogger('silent'), onProgress: (p) => out(formatProgress('flights', p)),
  });
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (inspector) {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    (await import('node:fs')).writeFileSync(process.env.PROFILE!, JSON.stringify(profile));
    inspector.disconnect();
  }
  const nodeCpu = (cpu.user + cpu.system) / 1e6;
  const pgCpu = cpuSince(pgBefore, await backendCpu(db.pool));
  out(`rebuild: ${JSON.stringify(result)} → ${Math.round(EVENTS / s)} events/s wall`);
  out(`rebuild CPU: node ${nodeCpu.toFixed(1)} s (${Math.round(EVENTS / nodeCpu)} events/CPU-s), ` +
    `postgres backends ${pgCpu.toFixed(1)} s (${Math.round(EVENTS / Math.max(pgCpu, 0.01))} events/CPU-s), ` +
    `load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);

  // The live projector over the last 20k events (rows loaded and written per batch of 500).
  const slice = Math.min(20_000, EVENTS);
  await db.pool.query("UPDATE projection_checkpoint SET position = position - $1 WHERE name = 'flights'", [slice]);
  const clock = new FakeClock();
  const projector = createFlightProjector();
  const t1 = performance.now();
  while ((await runBatch(db.pool, projector, { batchSize: 500, clock })).kind !== 'idle');
  out(`live projector: ${slice} events in ${((performance.now() - t1) / 1000).toFixed(1)} s → ${Math.round(slice / ((performance.now() - t1) / 1000))} events/s`);
} finally {
  await db.drop();
}
