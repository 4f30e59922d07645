/**
 * Restart, takeover and stop against the length of the history, as the operator sees them: logs of
 * 1 and 7 days at the week fixture's density (bench/harness/historyLog.ts: 2,000 flights a day,
 * ~41k decisions a day, every message's raw XML in the inbox, a 30-day keep window), a MariaDB
 * CMINMSGS mailbox, real `msgx start` processes. For each size, on a copy of the log:
 *   - a write-model snapshot at the head, as the writer records them;
 *   - restart: a new FLOP waits in CMINMSGS; `msgx start` spawned → that message decided
 *     (its decision's recorded_at);
 *   - takeover: a `--standby` waits beside the writer; SIGKILL of the writer → a FLOP sent right
 *     after it decided by the standby;
 *   - graceful stop: a busy run (the next day's plan and its first FLOPs, MSGX_BENCH_RESTART_BUSY
 *     messages) decided, then SIGTERM → exit, with the writer's "left to the next start" line.
 * Run once, niced, under the bench lock:
 *   nice node --import tsx bench/restartMeasure.ts
 * MSGX_BENCH_RESTART_DAYS (default 1,7). Figures go to docs/scaling.md and docs/benchmarks.md by hand.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { systemClock } from '../src/platform/clock.ts';
import { createPool } from '../src/platform/db.ts';
import { rebuildFlights } from '../src/projections/rebuild/rebuildFlights.ts';
import { foldFingerprint } from '../src/write/snapshot/foldFingerprint.ts';
import { foldModelUpTo } from '../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../src/write/snapshot/snapshotCodec.ts';
import { killMsgxChildren, spawnMsgx, type MsgxProcess } from '../test/support/msgxProcess.ts';
import { BENCH_ENV, benchLogger } from './harness/benchRuntime.ts';
import { insertMany, insertOne } from './harness/cminmsgs.ts';
import { cloneBenchPg, createBenchMysql, dropAll } from './harness/databases.ts';
import { HistoryBuilder, KEEP_DAYS, type HistoryLog } from './harness/historyLog.ts';
import { progress } from './harness/progress.ts';
import { historyDay, historyDayName } from './harness/weekDay.ts';
import { waitUntil } from './harness/waitUntil.ts';
import { decidedAt as decidedWithin, estt } from './harness/firstDecision.ts';

const LINE_TIMEOUT_MS = 10 * 60_000;
const BUSY = Number(process.env.MSGX_BENCH_RESTART_BUSY ?? 12_000);

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

async function lineAt(p: MsgxProcess, text: string): Promise<{ time: number; line: Record<string, unknown> }> {
  const raw = await p.waitForLine((l) => l.includes(`"msg":"${text}`), { timeoutMs: LINE_TIMEOUT_MS });
  const line = JSON.parse(raw) as Record<string, unknown>;
  return { time: Date.parse(String(line.time)), line };
}

const decidedAt = (pool: pg.Pool, msgId: string) => decidedWithin(pool, msgId, LINE_TIMEOUT_MS);

async function measure(source: HistoryLog): Promise<Record<string, unknown>> {
  const days = source.days;
  const db = await cloneBenchPg(source.db, `restart${days}`);
  const my = await createBenchMysql(`restart${days}`);
  const pool = createPool(db.url, { max: 2, applicationName: 'msgx-bench-restart' });
  const out: Record<string, unknown> = { days, decisions: source.events, liveFlights: source.liveFlights, loadAtStart: load() };
  try {
    // CMINMSGS ids above the fixture's message ids (the log already holds msg_id 1…N).
    await my.pool.query(`ALTER TABLE CMINMSGS AUTO_INCREMENT = ${source.messages + 1_000_000}`);
    const env = {
      ...BENCH_ENV, MSGX_HISTORY_KEEP_DAYS: String(KEEP_DAYS), MSGX_DATABASE_URL: db.url, MSGX_MAILBOX_MYSQL_URL: my.url,
      MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_LOG_LEVEL: 'info', MSGX_REQUEST_REFERENCE_AT_START: 'false',
      MSGX_DATA_DIR: `/tmp/msgx-bench-restart-${process.pid}-${days}`,
    };
    const writer = () => spawnMsgx(['start', '--role', 'writer'], env, { keep: 50_000 });
    // The last logged day's flights take the single FLOPs.
    const lastDay = historyDayName(days - 1);
    const lastFlid = (k: number) => String(2_000_000 + (days - 1) * 10_000 + (k % 2000));
    let seqn = 900_000_000;

    // The snapshot a running writer would have recorded (made here, in-process: a fold from 0 in
    // a child under the bench's load is not what is measured).
    progress(`restart ${days} d: a write-model snapshot at the head`);
    const image = (await foldModelUpTo(pool, source.head)).capture();
    const body = await encodeImage(image);
    await saveSnapshot(pool, { position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body, writeMs: 0 });
    out.snapshot = { position: image.position, flights: image.flights.size, bytes: body.length };

    progress(`restart ${days} d: restart with a message waiting`);
    const waiting = await insertOne(my.pool, estt(lastFlid(1), lastDay, seqn++));
    const spawned = Date.now();
    const w = writer();
    const fetching = w.waitForLine((l) => l.includes('"msg":"write model: snapshot flights fetched'), { timeoutMs: 60_000 }).then(
      (raw) => ({ time: Date.parse(String((JSON.parse(raw) as { time: string }).time)) }),
      () => ({ time: Number.NaN }),
    );
    const [lock, pump, caught] = await Promise.all(['writer lock taken', 'pump started', 'write model caught up'].map((t) => lineAt(w, t)));
    const fetched = await fetching;
    const restartDecided = await decidedAt(pool, waiting);
    out.restart = {
      spawnToDecidedMs: restartDecided - spawned, spawnToLockMs: lock!.time - spawned, lockToPumpMs: pump!.time - lock!.time,
      lockToCaughtUpMs: caught!.time - lock!.time, lockToDaysFetchedMs: fetched.time - lock!.time, pumpToDecidedMs: restartDecided - pump!.time,
      from: caught!.line.from, folded: caught!.line.folded, load: load(),
    };
    progress(`restart ${days} d: ${JSON.stringify(out.restart)}`);
    // The restarted writer's log, kept for reading the start's timeline line by line.
    mkdirSync(env.MSGX_DATA_DIR, { recursive: true });
    writeFileSync(`${env.MSGX_DATA_DIR}/restart.log`, w.output());
    progress(`restart ${days} d: the writer's log is in ${env.MSGX_DATA_DIR}/restart.log`);

    progress(`restart ${days} d: standby, then SIGKILL of the writer`);
    const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], env, { keep: 50_000 });
    // Listened for from the spawn on: a line that came before the listener was registered can be
    // cut from the kept output by the start-up check's mismatch lines (a run hung so).
    const taken = Promise.all([lineAt(standby, 'standby: writer lock taken'), lineAt(standby, 'pump started')]);
    taken.catch(() => undefined); // awaited below; an early exit rejects it there
    try {
      // Waiting for the lock (its first try failed): a kill before that try would let the standby
      // take the lock as a plain start ('writer lock taken'), and the takeover line never comes.
      await lineAt(standby, 'standby: waiting for the writer lock');
      await lineAt(standby, 'standby: write model follows the log');
      // A warm standby: its snapshot days decoded while it waits (docs/recovery.md "Warm standby").
      await lineAt(standby, 'standby: snapshot flights decoded');
      if (w.exited()) throw new Error(`the writer exited before the kill: ${JSON.stringify(w.exited())}; its last output:\n${w.output().slice(-2000)}`);
      const killed = Date.now();
      w.kill('SIGKILL');
      const sent = await insertOne(my.pool, estt(lastFlid(2), lastDay, seqn++));
      const takeoverDecided = await decidedAt(pool, sent);
      const [sLock, sPump] = await taken;
      if (sLock.time < killed) throw new Error(`the standby took the lock before the writer was killed (${killed - sLock.time} ms before); the writer's last output:\n${w.output().slice(-2000)}`);
      out.takeover = { killToDecidedMs: takeoverDecided - killed, killToLockMs: sLock.time - killed, lockToPumpMs: sPump.time - sLock.time, load: load() };
      progress(`restart ${days} d: ${JSON.stringify(out.takeover)}`);
      await w.exit;

      progress(`restart ${days} d: busy run of ${BUSY} messages, then SIGTERM`);
      const busy = historyDay(days).gen.messages.slice(0, BUSY);
      const b0 = Date.now();
      await insertMany(my.pool, busy);
      let head = '';
      // The CMINMSGS write-back backlog (msgx_pending_writebacks) while the busy run is decided.
      const writeBacks = { max: 0, atDecided: 0 };
      await waitUntil(
        async () => {
          const { rows } = await pool.query<{ done: number; backlog: number; head: string; writeBacks: number }>(
            `SELECT (SELECT count(*)::int FROM proc_state WHERE msg_id > $1::bigint) AS done,
                    (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS backlog,
                    (SELECT count(*)::int FROM proc_state WHERE backfill_state = 'PENDING') AS "writeBacks",
                    (SELECT last_position::text FROM pipeline_lock WHERE id = 1) AS head`,
            [source.messages],
          );
          head = rows[0]!.head;
          writeBacks.max = Math.max(writeBacks.max, rows[0]!.writeBacks);
          writeBacks.atDecided = rows[0]!.writeBacks;
          return rows[0]!.done >= busy.length + 2 && rows[0]!.backlog === 0;
        },
        { intervalMs: 200, timeoutMs: LINE_TIMEOUT_MS, what: 'the busy run decided' },
      );
      const decidedS = (Date.now() - b0) / 1000;
      // Finished in time, over MSGX_STOP_TIMEOUT_MS, or unreadable: each of the three lines says "left to the next start".
      const left = standby.waitForLine((l) => l.includes('left to the next start'), { timeoutMs: LINE_TIMEOUT_MS }).then((raw) => ({ line: JSON.parse(raw) as Record<string, unknown> }));
      const termed = Date.now();
      standby.kill('SIGTERM');
      const exit = await standby.exit;
      const stopMs = Date.now() - termed;
      const line = (await left).line;
      out.gracefulStop = {
        busyMessages: busy.length, busyDecidedS: Math.round(decidedS * 10) / 10, head, writeBacksPending: writeBacks, sigtermToExitMs: stopMs, exit,
        left: { undecided: line.undecided, writeBacks: line.writeBacks, deliveries: line.deliveries, unprojected: line.unprojected, stopMs: line.stopMs, msg: line.msg },
        load: load(),
      };
      progress(`restart ${days} d: ${JSON.stringify(out.gracefulStop)}`);
    } finally {
      if (standby.exited() === null) await standby.stop('SIGKILL', 10_000);
    }
    return out;
  } finally {
    await pool.end();
    await my.drop();
    await db.drop();
  }
}

try {
  // Compile msgx first (as bench/run.ts does): the first spawn would otherwise build it and time that.
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('../bin/build.js', import.meta.url))], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bin/build.js failed:\n${built.stderr}`);
  const sizes = (process.env.MSGX_BENCH_RESTART_DAYS ?? '1,7').split(',').map(Number).sort((a, b) => a - b);
  const builder = await HistoryBuilder.create();
  const results: Record<string, unknown>[] = [];
  for (const days of sizes) {
    progress(`restart: extending the log to ${days} day(s)`);
    await builder.extendToDays(days);
    // The read model at the head, as a running airport has it (else the writer's projector would
    // build it from position 0 during the measurements).
    const pool = createPool(builder.log.db.url, { max: 3, applicationName: 'msgx-bench-restart' });
    try {
      const built = await rebuildFlights({ pool, clock: systemClock, log: benchLogger().child({ role: 'rebuild' }) });
      if (!built.ok) throw new Error(`rebuild failed: ${JSON.stringify(built)}`);
    } finally {
      await pool.end();
    }
    results.push(await measure(builder.log));
  }
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  killMsgxChildren();
  await dropAll();
}
