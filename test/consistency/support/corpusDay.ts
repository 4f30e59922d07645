/**
 * A corpus day through the whole assembled writer (mailbox emulated in PostgreSQL): every corpus
 * message inserted into CMINMSGS, then waited for until nothing is unfinished, both projectors
 * are at the log head and every write-back is done.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assemble, type App } from '../../../src/cli/assemble.ts';
import type { Clock } from '../../../src/platform/clock.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import { silentLogger, type Logger } from '../../../src/platform/logger.ts';
import { openRuntime, type Runtime } from '../../../src/platform/runtime.ts';
import type { TestDatabase } from '../../support/databases.ts';
import { waitFor } from '../../support/waitFor.ts';
import { readScenario, scenarioNames } from '../../projections/support/corpus.ts';

export interface RunningApp {
  readonly rt: Runtime;
  readonly app: App;
  readonly base: string;
  stop(): Promise<void>;
}

export async function startApp(
  db: TestDatabase,
  env: Record<string, string> = {},
  opts: { log?: Logger; clock?: Clock } = {},
): Promise<RunningApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'msgx-verify-'));
  const cfg = loadConfig({
    MSGX_DATABASE_URL: db.url,
    MSGX_DATA_DIR: dataDir,
    MSGX_HTTP_HOST: '127.0.0.1',
    MSGX_HTTP_PORT: '0',
    MSGX_BACKOFF_MS: '20',
    MSGX_MAX_ATTEMPTS: '3',
    MSGX_POLL_INTERVAL_MS: '50',
    MSGX_SCHD_FLUSH_MS: '50',
    MSGX_GAP_TIMEOUT_MS: '2000',
    MSGX_CONSISTENCY_CHECK_ON_START: 'false',
    ...env,
  });
  const rt = await openRuntime(cfg, opts.log ?? silentLogger, { migrate: true, ...(opts.clock ? { clock: opts.clock } : {}) });
  const app = await assemble(rt, { role: 'all', standby: false });
  await app.start();
  return {
    rt,
    app,
    base: `http://127.0.0.1:${app.httpPort()}`,
    async stop() {
      await app.stop();
      await rt.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The corpus day run once through an app that is stopped afterwards: a database to read and check. */
export async function seedCorpusDay(db: TestDatabase): Promise<void> {
  const running = await startApp(db);
  try {
    await runCorpusDay(db, running);
  } finally {
    await running.stop();
  }
}

/** Insert every corpus message, wait until all is processed, projected and written back. */
export async function runCorpusDay(db: TestDatabase, running: RunningApp): Promise<number> {
  let n = 0;
  for (const name of scenarioNames()) {
    for (const f of readScenario(name).files) {
      await running.rt.mailbox.insertInbound(f.xml, running.rt.clock.now());
      n++;
    }
  }
  await waitFor(
    async () => {
      const { rows } = await db.pool.query(
        `SELECT (SELECT count(*)::int FROM proc_state) AS copied,
                (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED') OR backfill_state = 'PENDING') AS open,
                (SELECT count(*)::int FROM projection_checkpoint
                  WHERE position < (SELECT COALESCE(max(position), 0) FROM decision_event)) AS lagging`,
      );
      return rows[0].copied === n && rows[0].open === 0 && rows[0].lagging === 0;
    },
    { timeoutMs: 90_000, what: 'corpus day processed, projected and written back' },
  );
  return n;
}
