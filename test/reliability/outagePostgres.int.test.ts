/**
 * "PostgreSQL restarted" under real `msgx start` processes: a TCP proxy between msgx and
 * PostgreSQL is cut (every connection dies, new ones are refused) for ~5 s (60 s with
 * MSGX_SOAK=1) while traffic flows, then restored. PostgreSQL itself is shared with other tests,
 * so it is never really restarted.
 *
 * The writer cannot ride this out in-process: its writer lock is a PostgreSQL session, and a
 * writer whose lock session ended must stop (another process may hold the lock by now). It stops
 * with exit code 1 and is started again by its supervisor (here: a loop that restarts it at
 * once, as systemd `Restart=on-failure` would); the new process waits for PostgreSQL instead of
 * failing, and goes on when it is back. An `--role api` process has no lock: it stays up, reports
 * not ready, and reconnects by itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnMsgx, type MsgxExit, type MsgxProcess } from '../support/msgxProcess.ts';
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcpProxy.ts';
import { waitFor } from '../support/waitFor.ts';
import { decisions, insertCminmsgsBulk, terminalCounts } from '../write/support/writeHarness.ts';
import {
  check, counts, describeProblems, FLIDS, holdOutage, logIsGapFree, logLines, notReady, OUTAGE_ENV, OUTAGE_MS, operations, outageDatabases, parseLogLines, plan,
  problemsPerComponent, DRAIN_WITHIN_MS, RESUME_WITHIN_MS, startApp, type Readiness, type RunningApp,
} from './support/outageApp.ts';

const dbs = outageDatabases('outpg');
let proxy: TcpProxy;
let dataDir: string;

beforeAll(async () => {
  proxy = await startTcpProxy({ target: targetOf(dbs.db.url, 5432) });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-outpg-'));
});
afterAll(async () => {
  await proxy?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const linesOf = (run: Run) => parseLogLines(run.process.stderr());

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Run {
  readonly process: MsgxProcess;
  exit?: MsgxExit & { at: number };
}

/**
 * `msgx start <args>` under a supervisor like systemd `Restart=on-failure` (RestartSec=0): started
 * again at once whenever it exits non-zero or by a signal, until stop().
 */
function supervise(args: readonly string[], env: Record<string, string>) {
  const runs: Run[] = [];
  let stopping = false;
  const launch = (): void => {
    const run: Run = { process: spawnMsgx(['start', ...args], { ...OUTAGE_ENV, MSGX_DATA_DIR: dataDir, MSGX_LOG_LEVEL: 'info', ...env }) };
    runs.push(run);
    void run.process.exit.then((e) => {
      run.exit = { ...e, at: Date.now() };
      if (!stopping && e.code !== 0) launch();
    });
  };
  launch();
  return {
    runs,
    current: () => runs[runs.length - 1]!,
    async stop(): Promise<void> {
      stopping = true;
      await runs[runs.length - 1]!.process.stop('SIGTERM');
    },
  };
}

async function readyz(port: number): Promise<Readiness | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await res.json()) as { checks: { name: string; ok: boolean }[] };
    return { status: res.status, checks: body.checks };
  } catch {
    return null; // not listening (the process is starting or gone)
  }
}

describe(`PostgreSQL unreachable for ${OUTAGE_MS / 1000} s (every connection cut)`, () => {
  it('the writer stops with exit code 1, its restart waits for PostgreSQL and resumes within 5 s; an api process stays up and reconnects; nothing lost or decided twice', { timeout: 600_000 }, async () => {
    const t0 = Date.now();
    const writerPort = await freePort();
    const env = { MSGX_DATABASE_URL: proxy.url(dbs.db.url), MSGX_MAILBOX_MYSQL_URL: dbs.my.url };
    const writer = supervise([], { ...env, MSGX_HTTP_PORT: String(writerPort) });
    let api: RunningApp | undefined;
    try {
      // The api role takes no writer lock, so it can run in this process.
      api = await startApp(env, 'api');
      await waitFor(async () => (await readyz(writerPort))?.status === 200, { timeoutMs: DRAIN_WITHIN_MS, what: 'the writer ready' }).catch((err: Error) => {
        throw new Error(`${err.message}\n${writer.current().process.output()}`);
      });
      const readyMs = Date.now() - t0;
      const before = [plan(), ...operations(1000, 600)];
      const during = operations(3000, 100);
      await insertCminmsgsBulk(dbs.my, before);
      await waitFor(async () => (await counts(dbs.db)).decisions > 150, { timeoutMs: DRAIN_WITHIN_MS, what: 'traffic being decided' });

      // ---- the outage ----
      proxy.cut();
      const cutAt = Date.now();
      const first = writer.current();
      await insertCminmsgsBulk(dbs.my, during);
      const duringOutage = async () => {
        // The writer notices that its lock session is gone and stops itself, as a failure.
        await waitFor(() => first.exit, { timeoutMs: DRAIN_WITHIN_MS, what: 'the writer to stop itself' });
        const story = `${describeProblems(linesOf(first), cutAt, Date.now())}\n${first.process.stderr()}`;
        expect(first.exit, story).toMatchObject({ code: 1, signal: null });
        expect(linesOf(first).some((l) => l.level === 60 && /writer lock connection/.test(l.msg)), story).toBe(true);
        // Its restart does not crash-loop: it waits for PostgreSQL, and says so once.
        await waitFor(() => writer.runs.length === 2 && linesOf(writer.runs[1]!).some((l) => l.msg === 'PostgreSQL not reachable; waiting for it'), {
          timeoutMs: DRAIN_WITHIN_MS,
          what: 'the restarted writer to wait for PostgreSQL',
        });
        // The api process stays up and says it is not ready.
        const r = await notReady(api!);
        expect(check(r, 'postgres').ok).toBe(false);
        expect(check(r, 'mailbox').ok).toBe(true);
        // Queries fail, masked (a status screen keeps polling: that must not flood the log).
        for (let i = 0; i < 3; i++) {
          const q = await api!.gql('query($f: ID!) { flight(flid: $f) { flid } }', { f: FLIDS[2] });
          expect(q.errors).toMatchObject([{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
        }
      };
      await Promise.all([holdOutage(OUTAGE_MS), duringOutage()]);
      const atRestore = await counts(dbs.db);

      // ---- recovery ----
      await proxy.restore();
      const restoredAt = Date.now();
      await waitFor(async () => (await counts(dbs.db)).decisions > atRestore.decisions, { timeoutMs: RESUME_WITHIN_MS, intervalMs: 20, what: 'decisions to resume' }).catch((err: Error) => {
        // What the restarted writer did since PostgreSQL answered (timed lines), for the next reader of a failure.
        throw new Error(`${err.message} (load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n${writer.current().process.output()}`);
      });
      const resumedMs = Date.now() - restoredAt;
      const total = before.length + during.length;
      await waitFor(async () => {
        const c = await counts(dbs.db);
        return c.copied === total && c.unfinished === 0 && c.backfillPending === 0;
      }, { timeoutMs: DRAIN_WITHIN_MS, what: 'everything decided and written back' });
      const drainedMs = Date.now() - restoredAt;
      expect(writer.runs).toHaveLength(2);
      expect(writer.runs[1]!.exit).toBeUndefined();

      // The api process reconnected by itself: ready again, answering, its live feed LISTENing again.
      await waitFor(async () => (await api!.readyz()).status === 200, { timeoutMs: RESUME_WITHIN_MS, what: 'api ready again' });
      const f = await api.gql('query($f: ID!) { flight(flid: $f) { flid } }', { f: FLIDS[2] });
      expect(f.errors).toBeUndefined();
      expect(f.data.flight).toEqual({ flid: FLIDS[2] });
      await waitFor(() => logLines(api!.log).some((l) => l.msg === 'flight feed: listening again' && l.time >= restoredAt), { what: 'the flight feed to LISTEN again' });

      // Nothing lost, nothing decided twice.
      const terminal = terminalCounts(await decisions(dbs.db));
      expect(terminal.size).toBe(total);
      expect([...terminal.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      expect(await logIsGapFree(dbs.db)).toBe(true);

      // Logged once, not a flood: in every process, each component says what is wrong at most twice.
      const end = Date.now();
      const logs = [...writer.runs.map(linesOf), logLines(api.log)];
      const problems = logs.map((lines) => problemsPerComponent(lines, cutAt, end));
      logs.forEach((lines, i) => {
        for (const [component, n] of Object.entries(problems[i]!)) {
          expect(n, `process ${i} ${component}:\n${describeProblems(lines, cutAt, end)}`).toBeLessThanOrEqual(2);
        }
      });
      process.stderr.write(
        `[outage postgres] writer ready after ${readyMs} ms, cut at ${cutAt - t0} ms; outage ${restoredAt - cutAt} ms; writer stopped itself ${first.exit!.at - cutAt} ms after the cut; ` +
          `decisions resumed ${resumedMs} ms after restore, drained after ${drainedMs} ms; ` +
          `warnings per process (writer, restarted writer, api) and component: ${JSON.stringify(problems)}\n`,
      );
    } finally {
      await writer.stop();
      await api?.stop();
    }
  });
});
