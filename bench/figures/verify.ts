/**
 * Figure 8 — `msgx verify` on the week fixture (just over 200k events, 10,000 flights):
 *   - `--all` (runCheck, selection all: fold the whole log, read every flight row, every msg_event
 *     key and the write-backs, compare), events/s against `msgx rebuild flights`' rate on the same
 *     log in the same run (goal: at least half of it, i.e. within 2×);
 *   - the sentinel's daily 1% sample: database time, taken as the CPU time (user + system, from
 *     /proc) of the PostgreSQL backends serving the check, goal < 1 s; baseline the same for
 *     `--all`. The statements' wall times as the client waits for them (which on a loaded machine
 *     include waiting for a core, and the transfer) are in the details.
 * The fixture's outbox is "delivered" (checkpoint at the head, no rows): for the check, msg_event is
 * given the rows the log implies as SENT key rows with an empty payload (SQL, one statement per
 * target), and they are deleted again afterwards so that the later figures see the fixture as before.
 */
import { runCheck, type Selection } from '../../src/consistency/runCheck.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { backendCpu, cpuSince } from '../harness/backendCpu.ts';
import { ensureReadModel, withDayLogPool } from '../harness/dayLog.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { progress } from '../harness/progress.ts';
import { nowMs, round } from '../harness/stats.ts';
import { timeStatements } from '../harness/statementTimer.ts';

const NO_FLIGHT = `('PlanSnapshotApplied', 'FlightsArchived')`;
const APP = 'msgx-bench-verify';

export const verifyFigure: Figure = {
  id: 8,
  name: 'verify',
  title: 'msgx verify --all and the daily 1% sample on the week fixture',
  run: (): Promise<FigureResult> =>
    withDayLogPool(APP, async (log, pool) => {
      if (!log.readModel) progress('verify: building the read model first (msgx rebuild flights)');
      const rebuilt = await ensureReadModel(log, pool);
      if (!rebuilt.ok) throw new Error('rebuild failed');
      const rebuildRate = rebuilt.events / rebuilt.seconds;

      progress('verify: giving msg_event the rows the log implies (SENT, key rows only)');
      await pool.query(
        `INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, state, created_at)
         SELECT 'KAFKA_MSG', d.position, x.o - 1, d.msg_id, CASE WHEN x.c->>'type' IN ${NO_FLIGHT} THEN NULL ELSE x.c->>'flid' END, '{}', 'SENT', now()
           FROM decision_event d, jsonb_array_elements(d.payload->'changes') WITH ORDINALITY AS x(c, o)
          WHERE d.kind = 'Applied'
         ON CONFLICT DO NOTHING`,
      );
      await pool.query(
        `INSERT INTO msg_event (target, source_position, seq, msg_id, flid, payload, state, created_at)
         SELECT 'KAFKA_SCHD', t.position, row_number() OVER (PARTITION BY t.position) - 1, t.msg_id, t.flid, '{}', 'SENT', now()
           FROM (SELECT DISTINCT d.position, d.msg_id, x.c->>'flid' AS flid
                   FROM decision_event d, jsonb_array_elements(d.payload->'changes') AS x(c)
                  WHERE d.kind = 'Applied' AND x.c->>'type' NOT IN ${NO_FLIGHT}) t
         ON CONFLICT DO NOTHING`,
      );
      progress('verify: giving every decision its message (inbox_message + proc_state terminal, write-back DONE)');
      await pool.query(
        `INSERT INTO inbox_message (msg_id, ingested_at, raw_xml)
         SELECT d.msg_id, d.recorded_at, '' FROM decision_event d WHERE d.msg_id IS NOT NULL ON CONFLICT DO NOTHING`,
      );
      await pool.query(
        `INSERT INTO proc_state (msg_id, state, attempts, decided_position, backfill_state, backfill_status, created_at, updated_at)
         SELECT d.msg_id, CASE d.kind WHEN 'Applied' THEN 'SUCCEEDED' WHEN 'Skipped' THEN 'SKIPPED' ELSE 'DEAD' END, 1, d.position, 'DONE',
                CASE d.kind WHEN 'Applied' THEN 'PROCESSED' WHEN 'Skipped' THEN 'SKIPPED' ELSE 'DEAD' END, d.recorded_at, d.recorded_at
           FROM decision_event d WHERE d.msg_id IS NOT NULL AND d.kind IN ('Applied', 'Skipped', 'Dead')
         ON CONFLICT DO NOTHING`,
      );
      await pool.query('ANALYZE msg_event');
      await pool.query('ANALYZE proc_state');
      const { rows: counted } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM msg_event');

      const timer = timeStatements(pool);
      const check = async (selection: Selection) => {
        const cpu0 = await backendCpu(pool, APP);
        timer.reset();
        const t0 = nowMs();
        const report = await runCheck(pool, { selection, clock: systemClock });
        const seconds = (nowMs() - t0) / 1000;
        const statementMs = timer.top(100).reduce((s, t) => s + t.totalMs, 0);
        const dbMs = cpuSince(cpu0, await backendCpu(pool, APP)) * 1000;
        return { report, seconds, dbMs, statementMs, top: timer.top(5) };
      };
      progress('verify: --all');
      await check({ kind: 'sample', ratio: 0.01 }); // untimed warm-up of the sample path
      const all = await check({ kind: 'all' });
      progress(`verify: --all ${all.seconds.toFixed(1)} s, ${all.report.mismatches.length} mismatches; the 1% sample, 5 times`);
      const samples = [];
      for (let i = 0; i < 5; i++) samples.push(await check({ kind: 'sample', ratio: 0.01 }));
      const sampleDbMs = samples.map((s) => s.dbMs).sort((a, b) => a - b)[2]!;
      const sampleMedian = samples.slice().sort((a, b) => a.dbMs - b.dbMs)[2]!;
      await pool.query("DELETE FROM msg_event WHERE state = 'SENT' AND payload = '{}'::jsonb");
      await pool.query("DELETE FROM proc_state WHERE backfill_state = 'DONE' AND attempts = 1 AND msg_id IN (SELECT msg_id FROM inbox_message WHERE raw_xml = '')");
      await pool.query("DELETE FROM inbox_message m WHERE raw_xml = '' AND NOT EXISTS (SELECT 1 FROM proc_state p WHERE p.msg_id = m.msg_id)");

      const mismatches = all.report.mismatches.length + samples.reduce((s, x) => s + x.report.mismatches.length, 0);
      if (mismatches > 0) {
        progress(`verify: UNEXPECTED mismatches, first: ${JSON.stringify(all.report.mismatches.slice(0, 3))}`);
      }
      const rate = all.report.positions.log === '0' ? 0 : Number(all.report.positions.flights) / all.seconds;
      return {
        rows: [
          row('events/s', { value: rate, unit: 'ev/s' }, { value: rebuildRate, unit: 'ev/s', what: 'msgx rebuild flights, same log' }, 'higher', {
            text: '≥ 0.5× (within 2× of rebuild)',
            met: rate >= rebuildRate / 2 && mismatches === 0,
          }),
          row('database CPU ms', { value: sampleDbMs, unit: 'ms' }, { value: all.dbMs, unit: 'ms', what: 'same for verify --all' }, 'lower', {
            text: '1% sample < 1,000 ms',
            met: sampleDbMs < 1000 && mismatches === 0,
          }),
        ],
        details: {
          events: Number(all.report.positions.flights),
          flights: all.report.checked.flights,
          decisionsChecked: all.report.checked.decisions,
          messagesChecked: all.report.checked.messages,
          msgEventRows: counted[0]!.n,
          mismatches,
          allSeconds: round(all.seconds, 2),
          allDbCpuMs: round(all.dbMs),
          allStatementMs: round(all.statementMs),
          allTopStatements: all.top,
          rebuildSeconds: round(rebuilt.seconds, 2),
          sampleFlights: sampleMedian.report.checked.flights,
          sampleDecisions: sampleMedian.report.checked.decisions,
          sampleSeconds: samples.map((s) => round(s.seconds, 3)),
          sampleDbCpuMs: samples.map((s) => round(s.dbMs)),
          sampleStatementMs: samples.map((s) => round(s.statementMs)),
          sampleTopStatements: sampleMedian.top,
        },
      };
    }),
};
