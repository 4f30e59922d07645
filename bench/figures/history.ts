/**
 * Figure 11 — what grows with history: logs of whole weeks at the week fixture's density
 * (bench/harness/historyLog.ts: 2,000 flights a day, ~41k decisions a day, the pump's history sweep
 * with a 30-day keep window, every message's raw XML in `inbox_message`), 1, 4 and 13 weeks by
 * default (MSGX_BENCH_HISTORY_WEEKS=1,2 for a quick run; the log is built once and extended). For
 * each size:
 *   - full rebuild (rebuildFlights from 0), decisions/s — it also builds the read model;
 *   - the start-up consistency check's sample (runCheck, selection sample at the configured ratio,
 *     with the write-back sample and the snapshot sample): seconds and PostgreSQL backend CPU;
 *   - writer start, a real `msgx start --role writer` child: lock taken → pump started, with no
 *     snapshot (it then records one, as the writer does) and from that snapshot; from the snapshot
 *     also lock taken → the first decision, of an ESTT FLOP waiting in CMINMSGS for a flight of the
 *     oldest live day (the day the snapshot's days are fetched last: it waits for its own day
 *     only, docs/recovery.md "Start cost"); its RSS after start;
 *   - standby takeover: a `--standby` child waits beside the writer; SIGKILL of the writer → the
 *     standby's pump started, and → a FLOP inserted right after the kill decided;
 *   - rebuild from the newest snapshot (rebuildFlights' startFrom, as `msgx rebuild flights` does), s;
 *   - database size: pg_total_relation_size of the log, inbox, proc_state(_hst) and the read model,
 *     and per month of the decisions' recorded time (sum of pg_column_size of the rows, which works
 *     whether or not the tables are partitioned).
 * Rows: the largest size against the smallest, measured in the same run.
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { runCheck } from '../../src/consistency/runCheck.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { createPool } from '../../src/platform/db.ts';
import { rebuildFlights } from '../../src/projections/rebuild/rebuildFlights.ts';
import { checkSnapshot } from '../../src/write/snapshot/checkSnapshot.ts';
import { newestImage } from '../../src/write/snapshot/warmModel.ts';
import { foldFingerprint } from '../../src/write/snapshot/foldFingerprint.ts';
import { foldModelUpTo } from '../../src/write/snapshot/foldUpTo.ts';
import { saveSnapshot } from '../../src/write/snapshot/saveSnapshot.ts';
import { encodeImage } from '../../src/write/snapshot/snapshotCodec.ts';
import { spawnMsgx, type MsgxProcess } from '../../test/support/msgxProcess.ts';
import { backendCpu, cpuSince } from '../harness/backendCpu.ts';
import { BENCH_ENV, benchLogger } from '../harness/benchRuntime.ts';
import { row, type Figure, type FigureResult, type Row } from '../harness/figure.ts';
import { HistoryBuilder, KEEP_DAYS, type HistoryLog } from '../harness/historyLog.ts';
import { decidedAt, estt, insertEmulated } from '../harness/firstDecision.ts';
import { progress } from '../harness/progress.ts';
import { historyDayName } from '../harness/weekDay.ts';
import { median, nowMs, round } from '../harness/stats.ts';

const APP = 'msgx-bench-history';
const LINE_TIMEOUT_MS = 20 * 60_000;
/** MSGX_BENCH_HISTORY_ROUNDS: rounds of the start from a snapshot and the takeover (medians reported), default 3. */
const ROUNDS = Math.max(1, Number(process.env.MSGX_BENCH_HISTORY_ROUNDS ?? 3));
/**
 * MSGX_BENCH_HISTORY_ONLY=start: only the start from a snapshot and the takeover (and the full
 * rebuild the writer's projectors need): the snapshot is made in-process instead of by a start
 * without one, and the sample check and the rebuild from a snapshot are skipped (their rows read 0).
 */
const ONLY_START = process.env.MSGX_BENCH_HISTORY_ONLY === 'start';

/** MSGX_BENCH_HISTORY_WEEKS: ascending week counts, e.g. "1,4,13" (the default). */
export function historyWeeks(text = process.env.MSGX_BENCH_HISTORY_WEEKS ?? '1,4,13'): number[] {
  const weeks = text.split(',').map((w) => Number(w.trim()));
  if (weeks.length < 2 || weeks.some((w) => !Number.isInteger(w) || w < 1 || w > 60)) {
    throw new Error(`MSGX_BENCH_HISTORY_WEEKS must list at least two week counts from 1 to 60, e.g. 1,4,13 (got '${text}')`);
  }
  return [...new Set(weeks)].sort((a, b) => a - b);
}

/** The `time` (ms since the epoch) and fields of the first JSON log line whose msg starts with `text`. */
async function lineAt(p: MsgxProcess, text: string): Promise<{ time: number; line: Record<string, unknown> }> {
  const raw = await p.waitForLine((l) => l.includes(`"msg":"${text}`), { timeoutMs: LINE_TIMEOUT_MS });
  const line = JSON.parse(raw) as Record<string, unknown>;
  return { time: Date.parse(String(line.time)), line };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

/** One round of the start from the snapshot and the takeover after it. */
interface StartRound {
  startMs: number;
  firstDecisionMs: number;
  daysFetchedMs: number;
  warm: Record<string, unknown>;
  takeoverKillToPumpMs: number;
  takeoverLockToPumpMs: number;
  takeoverKillToDecidedMs: number;
  takeoverKillToSentMs: number;
  /** 1-minute load average at the round's end. */
  load: number;
}

interface SizeFigures {
  weeks: number;
  decisions: number;
  messages: number;
  liveFlights: number;
  buildSeconds: number;
  fullRebuildSeconds: number;
  fullRebuildPerSecond: number;
  sample: { seconds: number; dbCpuMs: number; flights: number; decisions: number; messages: number; snapshotFlights: number; mismatches: number };
  writerStartNoSnapshotMs: number;
  foldNoSnapshotMs: unknown;
  snapshotRecorded: Record<string, unknown>;
  writerStartFromSnapshotMs: number;
  /** Lock taken → the first decision (a FLOP waiting for a flight of the oldest live day). */
  writerFirstDecisionMs: number;
  /** Lock taken → every day of the snapshot fetched (in the background; a decision waits only for its flights' days). */
  writerDaysFetchedMs: number;
  /** Each round's figures (the ones above are their medians). */
  rounds: StartRound[];
  writerRssMb: number;
  takeoverKillToPumpMs: number;
  takeoverLockToPumpMs: number;
  /** SIGKILL of the writer → a FLOP inserted right after it decided by the standby. */
  takeoverKillToDecidedMs: number;
  /**
   * SIGKILL of the writer → that FLOP's INSERT committed, as the bench saw it: any commit into the
   * shared PostgreSQL (the emulated mailbox is a schema of it) took 0.7–1.2 s right after the kill
   * on the 2-core machine, against 2–15 ms just before it (bench/results/history-2026-12.md), and the
   * FLOP cannot be decided before it is there.
   */
  takeoverKillToSentMs: number;
  rebuildFromSnapshotSeconds: number;
  storage: { totalMb: number; tables: Record<string, number>; perMonthMb: Record<string, number> };
}

const TABLES = ['decision_event', 'inbox_message', 'proc_state', 'proc_state_hst', 'flight_schd', 'flight_doc', 'msg_event', 'write_model_snapshot'];

async function storage(pool: ReturnType<typeof createPool>): Promise<SizeFigures['storage']> {
  // pg_total_relation_size of a partitioned parent is 0: add its partitions (pg_partition_tree).
  const { rows } = await pool.query<{ t: string; bytes: string }>(
    `SELECT t, (SELECT coalesce(sum(pg_total_relation_size(p.relid)), 0) FROM pg_partition_tree(t::regclass) p)::bigint AS bytes
       FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL`,
    [TABLES],
  );
  const { rows: db } = await pool.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
  // Per month of the decisions' recorded time: the row bytes of the log, of the inbox (by ingested_at) and of proc_state(_hst) (by created_at).
  const { rows: months } = await pool.query<{ month: string; bytes: string }>(
    `SELECT month, sum(bytes)::bigint AS bytes FROM (
       SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, pg_column_size(d.*) AS bytes FROM decision_event d
       UNION ALL
       SELECT to_char(ingested_at AT TIME ZONE 'UTC', 'YYYY-MM'), pg_column_size(m.*) FROM inbox_message m
       UNION ALL
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'), pg_column_size(p.*) FROM proc_state p
       UNION ALL
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'), pg_column_size(h.*) FROM proc_state_hst h
     ) x GROUP BY month ORDER BY month`,
  );
  const mb = (b: string | number) => round(Number(b) / 2 ** 20, 1);
  return {
    totalMb: mb(db[0]!.bytes),
    tables: Object.fromEntries(rows.map((r) => [r.t, mb(r.bytes)])),
    perMonthMb: Object.fromEntries(months.map((r) => [r.month, mb(r.bytes)])),
  };
}

async function measureSize(log: HistoryLog, buildSeconds: number): Promise<SizeFigures> {
  const w = log.weeks;
  const env = { ...BENCH_ENV, MSGX_HISTORY_KEEP_DAYS: String(KEEP_DAYS) };
  const cfg = loadConfig({ ...env, MSGX_DATABASE_URL: log.db.url });
  const pool = createPool(log.db.url, { max: 6, applicationName: APP }) // a rebuild takes its session and two write lanes, and reads beside them;
  try {
    progress(`history ${w} w: full rebuild of ${log.events} decisions`);
    const r0 = nowMs();
    const full = await rebuildFlights({ pool, clock: systemClock, log: benchLogger().child({ role: 'rebuild' }) });
    const fullSeconds = (nowMs() - r0) / 1000;
    if (!full.ok) throw new Error(`full rebuild failed: ${JSON.stringify(full)}`);

    // Writer start with no snapshot; it records one (as it does at start), then stops.
    await pool.query('TRUNCATE write_model_snapshot');
    const childEnv = {
      ...env, MSGX_DATABASE_URL: log.db.url, MSGX_HTTP_PORT: '0', MSGX_HTTP_HOST: '127.0.0.1', MSGX_LOG_LEVEL: 'info',
      MSGX_REQUEST_REFERENCE_AT_START: 'false', MSGX_DATA_DIR: `/tmp/msgx-bench-history-${process.pid}`,
      // The FLOP sent after the kill waits for the ingest's next poll: at the default 1 s its phase
      // alone spread "kill → decided" over 1.4–2.9 s at one size. Polled every 100 ms, what is
      // compared between sizes is the takeover, which is what could grow with the history.
      MSGX_POLL_INTERVAL_MS: '100',
    };
    // Every line is listened for from the spawn on: the start-up check's 1,000 mismatch lines (the
    // fixture's outbox has no msg_event rows) can push an earlier line out of the kept output.
    const startWriter = async (label: string, more: readonly string[] = []) => {
      progress(`history ${w} w: writer start (${label})`);
      const p = spawnMsgx(['start', '--role', 'writer'], childEnv, { keep: 50_000 });
      const [lock, caught, pump, ...rest] = await Promise.all(['writer lock taken', 'write model caught up', 'pump started', ...more].map((t) => lineAt(p, t)));
      return { p, ms: pump!.time - lock!.time, lockAt: lock!.time, caught: caught!.line, rest };
    };
    let first: { ms: number; caught: Record<string, unknown> } = { ms: 0, caught: {} };
    let recorded: Record<string, unknown>;
    if (!ONLY_START) {
      const started = await startWriter('no snapshot', ['write-model snapshot recorded']);
      first = started;
      recorded = started.rest[0]!.line;
      await started.p.stop('SIGTERM', 30_000);
    } else {
      // The snapshot a running writer would have recorded, made in-process (as bench/restartMeasure.ts does).
      progress(`history ${w} w: a write-model snapshot at the head (in-process)`);
      const t0 = nowMs();
      const image = (await foldModelUpTo(pool, log.head)).capture();
      const body = await encodeImage(image);
      await saveSnapshot(pool, { position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body, writeMs: 0 });
      recorded = { bytes: body.length, encodeMs: null, totalMs: Math.round(nowMs() - t0), flights: image.flights.size };
    }

    // CMINMSGS ids far above the fixture's message ids (the log holds msg_id 1…N, and the next
    // sizes add theirs after N), and above the ingest's watermark of the smaller sizes.
    await pool.query("SELECT setval('mailbox.cminmsgs_cminmsgs_id_seq', $1::bigint)", [9_000_000_000_000 + w * 1_000_000]);
    // A FLOP waits for a flight of the oldest live day (2,000 flights a day, the live days the last
    // liveFlights / 2,000 of the log): its day is fetched last unless a decision needs it first.
    const oldestLive = Math.max(0, log.days - Math.round(log.liveFlights / 2000));
    // Only the day's name: generating the day (historyDay) took 0.7–1.2 s of the bench's own CPU
    // between the kill and the FLOP's INSERT, inside "kill → decided" (a CPU profile showed it).
    const oldestLiveDay = historyDayName(oldestLive);
    const flop = (n: number) => estt(String(2_000_000 + oldestLive * 10_000 + n), oldestLiveDay, 900_000_000 + n);
    // Rounds: a start from the snapshot with a FLOP waiting, then a takeover by a standby. From
    // the second round on, the start also folds the earlier rounds' FLOPs (decided after the
    // snapshot), as a start after a snapshot folds the decisions since.
    const rounds: StartRound[] = [];
    let writerRss = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const waiting = await insertEmulated(pool, flop(2 * r + 1));
      // Its days' bytes arrive beside the start, one day at a time; the first decision waits only
      // for the day of the flight it reads (docs/recovery.md "Start cost").
      const second = await startWriter(`from the snapshot, round ${r + 1}`, ['write model: snapshot flights fetched']);
      const daysIn = second.rest[0]!;
      const firstDecision = await decidedAt(pool, waiting, LINE_TIMEOUT_MS);
      if (r === 0) writerRss = await rssMb(second.p.pid);
      progress(`history ${w} w: standby, then SIGKILL of the writer (round ${r + 1})`);
      const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], childEnv, { keep: 50_000 });
      // Listened for from the spawn on: a line that came before the listener was registered can be
      // cut from the kept output by the start-up check's 1,000 mismatch lines (a run hung so).
      const taken = Promise.all([lineAt(standby, 'pump started'), lineAt(standby, 'standby: writer lock taken')]);
      taken.catch(() => undefined); // awaited below; an early exit rejects it there
      try {
        // Waiting for the lock (its first try failed): a kill before that try would let the standby
        // take the lock as a plain start ('writer lock taken'), and the takeover line never comes.
        await lineAt(standby, 'standby: waiting for the writer lock');
        await lineAt(standby, 'standby: write model follows the log');
        // A warm standby: its snapshot days decoded while it waits (docs/recovery.md "Warm standby").
        await lineAt(standby, 'standby: snapshot flights decoded');
        if (second.p.exited()) throw new Error(`the writer exited before the kill: ${JSON.stringify(second.p.exited())}; its last output:\n${second.p.output().slice(-2000)}`);
        const kill = Date.now();
        second.p.kill('SIGKILL');
        const sent = await insertEmulated(pool, flop(2 * r + 2));
        const sentAt = Date.now();
        const decided = await decidedAt(pool, sent, LINE_TIMEOUT_MS);
        const [pump, lock] = await taken;
        if (lock.time < kill) throw new Error(`the standby took the lock before the writer was killed (${kill - lock.time} ms before); the writer's last output:\n${second.p.output().slice(-2000)}`);
        rounds.push({
          startMs: second.ms, firstDecisionMs: firstDecision - second.lockAt, daysFetchedMs: daysIn.time - second.lockAt,
          warm: { from: second.caught.from, folded: second.caught.folded, ms: second.caught.ms, flights: second.caught.flights },
          takeoverKillToPumpMs: pump.time - kill, takeoverLockToPumpMs: pump.time - lock.time, takeoverKillToDecidedMs: decided - kill, takeoverKillToSentMs: sentAt - kill, load: loadavg()[0]!,
        });
        progress(`history ${w} w: round ${r + 1} ${JSON.stringify(rounds.at(-1))}`);
      } finally {
        await standby.stop('SIGTERM', 30_000);
        await second.p.exit;
      }
    }
    const med = (f: (r: StartRound) => number) => median(rounds.map(f));

    const none = { checked: { flights: 0, decisions: 0, messages: 0, snapshot: { flights: 0 } }, mismatches: [] as unknown[] };
    let sample: Pick<Awaited<ReturnType<typeof runCheck>>, 'checked' | 'mismatches'> = none as never;
    let sampleSeconds = 0;
    let sampleCpuMs = 0;
    let fromSnapshotSeconds = 0;
    if (!ONLY_START) {
      progress(`history ${w} w: the start-up sample check (ratio ${cfg.consistency.sampleRatio})`);
      await runCheck(pool, { selection: { kind: 'sample', ratio: cfg.consistency.sampleRatio }, clock: systemClock, snapshot: checkSnapshot }); // warm-up
      const cpu0 = await backendCpu(pool, APP);
      const s0 = nowMs();
      sample = await runCheck(pool, { selection: { kind: 'sample', ratio: cfg.consistency.sampleRatio }, clock: systemClock, snapshot: checkSnapshot });
      sampleSeconds = (nowMs() - s0) / 1000;
      sampleCpuMs = cpuSince(cpu0, await backendCpu(pool, APP)) * 1000;

      progress(`history ${w} w: rebuild from the newest snapshot`);
      const b0 = nowMs();
      const fromSnapshot = await rebuildFlights({
        pool, clock: systemClock, log: benchLogger().child({ role: 'rebuild' }), startFrom: () => newestImage(pool),
      });
      fromSnapshotSeconds = (nowMs() - b0) / 1000;
      if (!fromSnapshot.ok) throw new Error('rebuild from a snapshot failed');
    }

    // The rounds' FLOPs are decisions of the log too: the next size's days come after them.
    const { rows: [head] } = await pool.query<{ head: string }>('SELECT last_position::text AS head FROM pipeline_lock WHERE id = 1');
    log.events = Number(head!.head);
    log.head = head!.head;

    progress(`history ${w} w: database size`);
    return {
      weeks: w,
      decisions: log.events,
      messages: log.messages,
      liveFlights: log.liveFlights,
      buildSeconds: round(buildSeconds),
      fullRebuildSeconds: round(fullSeconds, 2),
      fullRebuildPerSecond: Math.round(full.events / fullSeconds),
      sample: {
        seconds: round(sampleSeconds, 2), dbCpuMs: round(sampleCpuMs), flights: sample.checked.flights, decisions: sample.checked.decisions,
        messages: sample.checked.messages, snapshotFlights: sample.checked.snapshot?.flights ?? 0, mismatches: sample.mismatches.length,
      },
      writerStartNoSnapshotMs: first.ms,
      foldNoSnapshotMs: first.caught.ms,
      snapshotRecorded: { bytes: recorded.bytes, encodeMs: recorded.encodeMs, totalMs: recorded.totalMs, flights: recorded.flights },
      writerStartFromSnapshotMs: med((r) => r.startMs),
      writerFirstDecisionMs: med((r) => r.firstDecisionMs),
      writerDaysFetchedMs: med((r) => r.daysFetchedMs),
      rounds,
      writerRssMb: round(writerRss),
      takeoverKillToPumpMs: med((r) => r.takeoverKillToPumpMs),
      takeoverLockToPumpMs: med((r) => r.takeoverLockToPumpMs),
      takeoverKillToDecidedMs: med((r) => r.takeoverKillToDecidedMs),
      takeoverKillToSentMs: med((r) => r.takeoverKillToSentMs),
      rebuildFromSnapshotSeconds: round(fromSnapshotSeconds, 2),
      storage: await storage(pool),
    };
  } finally {
    await pool.end();
  }
}

export const historyFigure: Figure = {
  id: 11,
  name: 'history',
  title: 'start, takeover, rebuild, verify sample and storage over weeks of history',
  async run(): Promise<FigureResult> {
    const weeks = historyWeeks();
    const builder = await HistoryBuilder.create();
    const sizes: SizeFigures[] = [];
    for (const w of weeks) {
      progress(`history: extending the log to ${w} week(s)`);
      const log = await builder.extendTo(w);
      const size = await measureSize(log, log.buildSeconds.at(-1)!);
      progress(`history ${w} w: ${JSON.stringify(size)}`);
      sizes.push(size);
    }
    const small = sizes[0]!;
    const big = sizes.at(-1)!;
    const vs = `${small.weeks} week(s), same run`;
    const label = (m: string) => `${m}, ${big.weeks} w`;
    const rows: Row[] = [
      row(label('writer start from a snapshot (lock → pump started), ms'), { value: big.writerStartFromSnapshotMs, unit: 'ms' }, { value: small.writerStartFromSnapshotMs, unit: 'ms', what: vs }, 'lower', {
        text: '≤ 1.5× and < 5 s',
        met: big.writerStartFromSnapshotMs <= 1.5 * small.writerStartFromSnapshotMs && big.writerStartFromSnapshotMs < 5000,
      }),
      row(label('writer start, lock → first decision (a FLOP of the oldest live day), ms'), { value: big.writerFirstDecisionMs, unit: 'ms' }, { value: small.writerFirstDecisionMs, unit: 'ms', what: vs }, 'lower', {
        text: '≤ 1.5× and < 5 s',
        met: big.writerFirstDecisionMs <= 1.5 * small.writerFirstDecisionMs && big.writerFirstDecisionMs < 5000,
      }),
      row(label('writer start, lock → every snapshot day fetched (background), ms'), { value: big.writerDaysFetchedMs, unit: 'ms' }, { value: small.writerDaysFetchedMs, unit: 'ms', what: vs }, 'lower'),
      row(label('writer start, no snapshot, ms'), { value: big.writerStartNoSnapshotMs, unit: 'ms' }, { value: small.writerStartNoSnapshotMs, unit: 'ms', what: vs }, 'lower'),
      row(label('standby takeover (kill -9 → pump started), ms'), { value: big.takeoverKillToPumpMs, unit: 'ms' }, { value: small.takeoverKillToPumpMs, unit: 'ms', what: vs }, 'lower', {
        text: '≤ 1.5× and < 5 s',
        met: big.takeoverKillToPumpMs <= 1.5 * small.takeoverKillToPumpMs && big.takeoverKillToPumpMs < 5000,
      }),
      row(label('standby takeover (kill -9 → a new FLOP decided), ms'), { value: big.takeoverKillToDecidedMs, unit: 'ms' }, { value: small.takeoverKillToDecidedMs, unit: 'ms', what: vs }, 'lower', {
        text: '≤ 1.5× and < 5 s',
        met: big.takeoverKillToDecidedMs <= 1.5 * small.takeoverKillToDecidedMs && big.takeoverKillToDecidedMs < 5000,
      }),
      row(label('the FLOP sent after the kill: kill -9 → its INSERT committed (the bench\'s own write), ms'), { value: big.takeoverKillToSentMs, unit: 'ms' }, { value: small.takeoverKillToSentMs, unit: 'ms', what: vs }, 'lower'),
      row(label('rebuild from a snapshot, s'), { value: big.rebuildFromSnapshotSeconds, unit: 's' }, { value: small.rebuildFromSnapshotSeconds, unit: 's', what: vs }, 'lower', {
        text: '≤ 2×',
        met: big.rebuildFromSnapshotSeconds <= 2 * small.rebuildFromSnapshotSeconds,
      }),
      row(label('full rebuild, decisions/s'), { value: big.fullRebuildPerSecond, unit: '/s' }, { value: small.fullRebuildPerSecond, unit: '/s', what: vs }, 'higher', {
        text: '≥ 60,000 /s',
        met: Math.min(...sizes.map((s) => s.fullRebuildPerSecond)) >= 60_000,
      }),
      row(label('start-up sample check, database CPU ms'), { value: big.sample.dbCpuMs, unit: 'ms' }, { value: small.sample.dbCpuMs, unit: 'ms', what: vs }, 'lower'),
      row(label('writer RSS after start, MB'), { value: big.writerRssMb, unit: 'MB' }, { value: small.writerRssMb, unit: 'MB', what: vs }, 'lower'),
      row(label('database size, MB'), { value: big.storage.totalMb, unit: 'MB' }, { value: small.storage.totalMb, unit: 'MB', what: vs }, 'lower'),
    ];
    return { rows, details: { weeks, keepDays: KEEP_DAYS, sizes } };
  },
};
