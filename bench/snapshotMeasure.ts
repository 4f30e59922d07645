/**
 * Write-model snapshots on the week fixture (bench/harness/dayLog.ts: ~200k decisions, 10,000
 * flights): in-process fold from 0, snapshot size, encode time and the longest event-loop block
 * while encoding, restore time; then real `msgx start` processes — writer start (lock → pump
 * started) without and with a snapshot, and a warm standby's takeover (kill -9 of the writer →
 * the standby's pump started). Run once, niced: `nice node --import tsx bench/snapshotMeasure.ts`.
 * Figures go to docs/scaling.md and docs/benchmarks.md by hand.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createPool } from '../src/platform/db.ts';
import { silentLogger } from '../src/platform/logger.ts';
import { WriteModel } from '../src/write/pump/writeModel.ts';
import { foldFingerprint } from '../src/write/snapshot/foldFingerprint.ts';
import { saveSnapshot } from '../src/write/snapshot/saveSnapshot.ts';
import { decodeImage, encodeImage } from '../src/write/snapshot/snapshotCodec.ts';
import { warmModel } from '../src/write/snapshot/warmModel.ts';
import { killMsgxChildren, spawnMsgx, type MsgxProcess } from '../test/support/msgxProcess.ts';
import { dayLog, ensureReadModel } from './harness/dayLog.ts';
import { dropAll } from './harness/databases.ts';
import { nowMs } from './harness/stats.ts';

const out: Record<string, unknown> = {};
const say = (k: string, v: unknown) => {
  out[k] = v;
  process.stderr.write(`${k}: ${JSON.stringify(v)}\n`);
};

/** The `time` of the first JSON log line whose msg contains `text`. */
async function lineTime(p: MsgxProcess, text: string, timeoutMs = 300_000): Promise<{ time: number; line: Record<string, unknown> }> {
  const raw = await p.waitForLine((l) => l.includes(`"msg":"${text}`), { timeoutMs });
  const line = JSON.parse(raw) as Record<string, unknown>;
  return { time: Date.parse(String(line.time)), line };
}

try {
  const t0 = nowMs();
  const log = await dayLog();
  say('fixture', { events: log.events, flights: log.flights, buildSeconds: Math.round((nowMs() - t0) / 1000) });
  const pool = createPool(log.db.url, { max: 4, applicationName: 'msgx-bench-snapshot' });
  await ensureReadModel(log, pool);

  // In-process: fold from 0 (twice: the second finds the log in the page cache).
  let model = new WriteModel();
  await warmModel(pool, model, silentLogger);
  model = new WriteModel();
  const f0 = nowMs();
  const folded = await warmModel(pool, model, silentLogger);
  say('foldFrom0', { ms: Math.round(nowMs() - f0), folded: folded.folded, flights: model.flights.size, perSecond: Math.round(folded.folded / ((nowMs() - f0) / 1000)) });

  const c0 = nowMs();
  const image = model.capture();
  const captureMs = nowMs() - c0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const e0 = nowMs();
  const body = await encodeImage(image);
  const encodeMs = nowMs() - e0;
  delay.disable();
  const s0 = nowMs();
  await saveSnapshot(pool, { position: image.position, fingerprint: foldFingerprint(), latestDay: image.latestDay, flights: image.flights.size, body, writeMs: encodeMs });
  say('snapshot', {
    position: image.position, flights: image.flights.size, bytes: body.length, captureMs: +captureMs.toFixed(2), encodeMs: Math.round(encodeMs),
    insertMs: Math.round(nowMs() - s0), longestLoopBlockMs: +(delay.max / 1e6).toFixed(1), p99LoopBlockMs: +(delay.percentile(99) / 1e6).toFixed(1),
  });
  const d0 = nowMs();
  const decoded = await decodeImage(body);
  const decodeMs = nowMs() - d0;
  const restored = new WriteModel();
  const r0 = nowMs();
  const warm = await warmModel(pool, restored, silentLogger);
  say('restore', { decodeMs: Math.round(decodeMs), warmFromSnapshotMs: Math.round(nowMs() - r0), from: warm.from, folded: warm.folded, flights: decoded.flights.size });
  await pool.query('TRUNCATE write_model_snapshot');

  // Real processes: writer start without a snapshot, then with the one it records, then a standby's takeover.
  const env = {
    MSGX_DATABASE_URL: log.db.url, MSGX_HTTP_PORT: '0', MSGX_LOG_LEVEL: 'info', MSGX_REQUEST_REFERENCE_AT_START: 'false',
    MSGX_DATA_DIR: `/tmp/msgx-bench-snapshot-${process.pid}`,
  };
  const startOnce = async (label: string): Promise<MsgxProcess> => {
    const w = spawnMsgx(['start', '--role', 'writer'], env, { keep: 20_000 });
    const lock = await lineTime(w, 'writer lock taken');
    const caught = await lineTime(w, 'write model caught up');
    const pump = await lineTime(w, 'pump started');
    say(label, { lockToPumpStartedMs: pump.time - lock.time, from: caught.line.from, folded: caught.line.folded, foldMs: caught.line.ms });
    return w;
  };
  const first = await startOnce('writerStartNoSnapshot');
  const rec = await lineTime(first, 'write-model snapshot recorded');
  say('snapshotByWriter', { bytes: rec.line.bytes, encodeMs: rec.line.encodeMs, totalMs: rec.line.totalMs, flights: rec.line.flights });
  first.kill('SIGTERM');
  const stop0 = Date.now();
  await first.exit;
  say('gracefulStopMs', Date.now() - stop0);
  const second = await startOnce('writerStartWithSnapshot');
  const standby = spawnMsgx(['start', '--role', 'writer', '--standby'], env, { keep: 20_000 });
  await lineTime(standby, 'standby: write model follows the log');
  const kill = Date.now();
  second.kill('SIGKILL');
  const taken = await lineTime(standby, 'pump started');
  const caught = await lineTime(standby, 'standby: writer lock taken');
  say('standbyTakeover', { killToPumpStartedMs: taken.time - kill, lockToPumpStartedMs: taken.time - caught.time });
  standby.kill('SIGTERM');
  await standby.exit;
  await pool.end();
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  killMsgxChildren();
  await dropAll();
}
