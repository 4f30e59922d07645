import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';
import { createTestMysql, type TestMysql } from '../support/mysql.ts';
import { waitFor } from '../support/waitFor.ts';
import { generateTraffic } from './support/traffic.ts';
import {
  decisions, insertCminmsgsBulk, procStates, startWriter, terminalCounts, testRuntime, unfinished, type DecisionRow,
} from './support/writeHarness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOTAL = 1000;
const KILLS = 3;
const ENV = { MSGX_HISTORY_KEEP_DAYS: '36500', MSGX_BACKOFF_MS: '10', MSGX_MAX_ATTEMPTS: '3', MSGX_POLL_INTERVAL_MS: '50', MSGX_INGEST_BATCH: '100' };

let ref: { db: TestDatabase; my: TestMysql };
let crash: { db: TestDatabase; my: TestMysql };
let dataDir: string;

beforeAll(async () => {
  const [a, b, c, d] = await Promise.all([createTestDatabase('crashref'), createTestMysql('crashref'), createTestDatabase('crash'), createTestMysql('crash')]);
  ref = { db: a, my: b };
  crash = { db: c, my: d };
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-crash-'));
});
afterAll(async () => {
  await Promise.all([ref?.db.drop(), ref?.my.drop(), crash?.db.drop(), crash?.my.drop()]);
  await rm(dataDir, { recursive: true, force: true });
});

/** What a message's decisions say, without times: kind + changes / reason / error class, in order. */
function digest(rows: readonly DecisionRow[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    if (r.msg_id === null) continue;
    const p = r.payload;
    const what = r.kind === 'Applied' ? JSON.stringify(p.changes) : r.kind === 'Skipped' ? String(p.reason) : `${String(p.errorClass)}/${String(p.causeClass ?? '')}`;
    out.set(r.msg_id, [...(out.get(r.msg_id) ?? []), `${r.kind}:${what}`]);
  }
  return out;
}

function startChild(db: TestDatabase, my: TestMysql, stderr: string[]): ChildProcess {
  const child = spawn(process.execPath, ['bin/msgx.js', 'start', '--standby'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...ENV,
      MSGX_DATABASE_URL: db.url,
      MSGX_MAILBOX_MYSQL_URL: my.url,
      MSGX_HTTP_PORT: '0',
      MSGX_HTTP_HOST: '127.0.0.1',
      MSGX_DATA_DIR: dataDir,
      MSGX_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (b: Buffer) => stderr.push(b.toString()));
  return child;
}

const exited = (c: ChildProcess) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));

async function decisionCount(db: TestDatabase): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM decision_event');
  return Number(rows[0]!.n);
}

// Measured ~45–55 s on the 2-core development machine while other suites ran (load average ~9);
// much of it is the child's start-up (tsx), four times. The timeouts leave room for a busy host.
describe('crash safety: `msgx start` killed with SIGKILL again and again', () => {
  it(`leaves the same decisions as an uninterrupted run (${TOTAL} messages, ${KILLS} kills)`, { timeout: 180_000 }, async () => {
    const traffic = generateTraffic(TOTAL);

    // Reference: uninterrupted, in-process.
    const t0 = Date.now();
    const mark = (what: string) => process.env.MSGX_TEST_TIMING && process.stderr.write(`${Date.now() - t0} ms ${what}\n`);
    await insertCminmsgsBulk(ref.my, traffic);
    mark('reference inserted');
    const rt = testRuntime(ref.db, ref.my, { env: ENV });
    const w = await startWriter(rt);
    await waitFor(async () => (await procStates(ref.db)).length === TOTAL && (await unfinished(ref.db)) === 0, { timeoutMs: 60_000, what: 'reference run' });
    await w.stop();
    await rt.close();
    const expected = digest(await decisions(ref.db));
    mark('reference done');

    // Crash run: traffic keeps arriving while the child is killed at random moments.
    const stderr: string[] = [];
    let child = startChild(crash.db, crash.my, stderr);
    const feeding = (async () => {
      for (let i = 0; i < traffic.length; i += 50) {
        await insertCminmsgsBulk(crash.my, traffic.slice(i, i + 50));
        await new Promise((r) => setTimeout(r, 20));
      }
      mark('crash run fed');
    })();
    let kills = 0;
    try {
      for (let k = 1; k <= KILLS; k++) {
        const target = Math.floor((TOTAL * k) / (KILLS + 1)) + Math.floor(Math.random() * 40);
        await waitFor(async () => (await decisionCount(crash.db)) >= target, { timeoutMs: 60_000, intervalMs: 5, what: `${target} decisions before kill ${k}` });
        child.kill('SIGKILL');
        mark(`kill ${k} at ${target}`);
        await exited(child);
        kills++;
        child = startChild(crash.db, crash.my, stderr);
      }
      await feeding;
      await waitFor(async () => (await procStates(crash.db)).length === TOTAL && (await unfinished(crash.db)) === 0, {
        timeoutMs: 60_000,
        what: `crash run to finish; child stderr: ${stderr.join('').slice(-2000)}`,
      });
      mark('crash run done');
      await waitFor(async () => (await procStates(crash.db)).every((p) => p.backfill_state === 'DONE'), { what: 'backfill after crashes' });
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
    expect(kills).toBe(KILLS);

    const log = await decisions(crash.db);
    expect([...terminalCounts(log).entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect((await procStates(crash.db)).every((p) => ['SUCCEEDED', 'SKIPPED', 'DEAD'].includes(p.state))).toBe(true);
    const actual = digest(log);
    expect(actual.size).toBe(TOTAL);
    const differing = [...actual.entries()].filter(([id, d]) => JSON.stringify(d) !== JSON.stringify(expected.get(id)));
    expect(differing.slice(0, 3).map(([id, d]) => ({ id, crash: d, reference: expected.get(id) }))).toEqual([]);
    // The mix really had every outcome.
    const kinds = new Set(log.map((d) => d.kind));
    expect([...kinds].sort()).toEqual(['Applied', 'Dead', 'Failed', 'Skipped']);
  });
});
